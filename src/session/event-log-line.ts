// A trainer event as one line of the log pane's event view (`L`), and the trainer's own clock
// read as ours. Pure: the feed calls these on every record it reads.
import type { TrainerEvent } from '../trainer-log/events.js';
import { stepValue } from '../trainer-log/stats-shapes.js';
import { formatNumber } from '../metrics/format-number.js';
import type { LogLine } from './types.js';

/** A trainer local time ("2026-05-25T12:19:55.952", no zone) as epoch ms, read as our local time. */
export function localTimeMs(time: string | null | undefined): number | null {
  if (!time) return null;
  const t = Date.parse(time);
  return Number.isFinite(t) ? t : null;
}

export function eventLogLine(e: TrainerEvent, seq: number): LogLine | null {
  switch (e.type) {
    case 'step': {
      const r = stepValue(e, 'rollout/reward');
      return {
        seq,
        level: 'info',
        time: e.time,
        text: `Epoch ${e.epoch}/${e.epochs} Step ${e.step}/${e.stepsPerEpoch} Train step ${e.globalStep}/${e.totalSteps} done. reward ${formatNumber(r ?? null)}`,
      };
    }
    case 'memory':
      return {
        seq,
        level: 'info',
        time: e.time,
        text: `Memory-Usage ${e.phase}: allocated ${e.allocatedGB} GB, reserved ${e.reservedGB} GB, used ${e.usedGB}/${e.totalGB} GB`,
      };
    case 'batch':
      return {
        seq,
        level: 'info',
        time: e.time,
        text: `prepare_batch/rollout: wait ${e.waitS}s, total ${e.totalS}s, ${e.episodes} episodes`,
      };
    case 'resume':
      return {
        seq,
        level: 'warning',
        time: e.time,
        text: `Recovering from a checkpoint: step ${e.resumeStep} runs next`,
      };
    case 'start':
      return { seq, level: 'info', time: e.time, text: 'Fresh start (no resume info)' };
    case 'error': {
      const first = e.detail.split('\n').find((l) => l.trim()) ?? '';
      return {
        seq,
        level: 'error',
        time: e.time,
        source: e.source,
        text: first && !e.message.includes(first.trim()) ? `${e.message} — ${first.trim()}` : e.message,
      };
    }
    case 'warning':
      return { seq, level: 'warning', time: e.time, source: e.source, text: e.message };
    case 'finished':
      return { seq, level: 'info', time: e.time, text: 'Training completes!' };
    case 'eval':
    case 'eval-progress': {
      const done = e.type === 'eval' ? 'complete' : 'progress';
      const t = e.type === 'eval' ? `time ${e.timeS}s` : `elapsed ${e.elapsedS}s`;
      const figures = `reward ${formatNumber(e.reward)}, completed ${e.completed}/${e.total}, failed ${e.failed}`;
      return {
        seq,
        level: 'info',
        time: e.time,
        text: `Eval round ${e.round} ${done} (model step ${e.modelStep}): ${figures}, ${t}`,
      };
    }
    case 'wandb':
      return e.url !== null
        ? {
            seq,
            level: 'info',
            time: null,
            text: `wandb run${e.from === 'config' ? ' (from the config)' : ''}: ${e.url}`,
          }
        : { seq, level: 'info', time: null, text: `wandb offline: run data in ${e.dir ?? 'an unknown dir'}` };
  }
}
