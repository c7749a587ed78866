// Slow drift: a `timeperf/*` phase whose median over the last 20 steps is at least twice its median
// over the first 20 (users report update_weights creeping from ~20 s to minutes over a long run).
// Memory is fixed: 20 + 20 values per key, and a cap on the number of keys.
import type { Alert } from './alert.js';
import { formatDuration } from './time.js';
import { median } from './window.js';
import { stepColumns } from '../trainer-log/stats-shapes.js';
import type { StepEvent } from '../trainer-log/events.js';

export const DRIFT_WINDOW = 20;
export const DRIFT_FACTOR = 2;
/** Sub-second phases double by noise alone; a drift has to cost real time to be worth a warning. */
export const DRIFT_FLOOR_S = 10;
const MAX_KEYS = 64;

interface Sample {
  step: number;
  value: number;
}

export class KeyWindows {
  first: Sample[] = [];
  recent: Sample[] = [];

  /** The median of `first` while it stands (undefined: not known): it stops changing once the
   *  first 20 steps are in, and the rule asks for it at every step. */
  private early: number | null | undefined;

  add(step: number, value: number): void {
    // Steps repeat after a resume and the later value stands: replace in place.
    const f = this.first.find((s) => s.step === step);
    if (f) {
      f.value = value;
      this.early = undefined;
    } else if (
      this.first.length < DRIFT_WINDOW &&
      (this.first.length === 0 || step > this.first[this.first.length - 1].step)
    ) {
      this.first.push({ step, value });
      this.early = undefined;
    }
    // A replayed step invalidates the recent samples at and after it (ascending: only a step at or
    // before the newest one replays any).
    const newest = this.recent[this.recent.length - 1];
    if (newest !== undefined && newest.step >= step) this.recent = this.recent.filter((s) => s.step < step);
    this.recent.push({ step, value });
    if (this.recent.length > DRIFT_WINDOW) this.recent.shift();
  }

  earlyMedian(): number | null {
    if (this.early === undefined) this.early = median(this.first.map((s) => s.value));
    return this.early;
  }
}

export class DriftTracker {
  private readonly keys = new Map<string, KeyWindows>();
  /** The alerts until the next step: they depend on the steps alone, and are asked for at every
   *  observation (twice per record when a backfill rebuilds the alert history). */
  private cached: Alert[] | null = null;

  /** A parsed step's key array (stepColumns) and where its timeperf/ keys are in it. */
  private columnKeys: readonly string[] | null = null;
  private phaseAt: number[] = [];

  ingestStep(e: Pick<StepEvent, 'globalStep' | 'stats'>): void {
    this.cached = null;
    const columns = stepColumns(e);
    if (columns === undefined) {
      const stats = e.stats;
      for (const key in stats) if (key.startsWith('timeperf/')) this.add(e.globalStep, key, stats[key]);
      return;
    }
    // The same order as `for in` (stepColumns keeps Object.keys order), found once per key set.
    if (columns.keys !== this.columnKeys) {
      this.columnKeys = columns.keys;
      this.phaseAt = [];
      columns.keys.forEach((k, i) => k.startsWith('timeperf/') && this.phaseAt.push(i));
    }
    for (const i of this.phaseAt) this.add(e.globalStep, columns.keys[i], columns.value(i));
  }

  private add(globalStep: number, key: string, v: number | null): void {
    if (v === null || !Number.isFinite(v)) return;
    let w = this.keys.get(key);
    if (!w) {
      if (this.keys.size >= MAX_KEYS) return;
      w = new KeyWindows();
      this.keys.set(key, w);
    }
    w.add(globalStep, v);
  }

  alerts(): Alert[] {
    return [...(this.cached ??= this.evaluate())];
  }

  private evaluate(): Alert[] {
    const out: Alert[] = [];
    for (const [key, w] of this.keys) {
      if (w.first.length < DRIFT_WINDOW || w.recent.length < DRIFT_WINDOW) continue;
      const lastFirst = w.first[w.first.length - 1].step;
      if (w.recent[0].step <= lastFirst) continue; // windows overlap: fewer than 40 distinct steps
      const early = w.earlyMedian()!;
      const late = median(w.recent.map((s) => s.value))!;
      if (!(late >= DRIFT_FACTOR * early) || late - early < DRIFT_FLOOR_S) continue;
      const phase = key.slice('timeperf/'.length);
      const ratio = early > 0 ? `${(late / early).toFixed(1)}×` : 'from 0';
      out.push({
        id: `health/drift/${phase}`,
        severity: 'warning',
        title: `${key} is drifting up`,
        detail: `${key}: median ${formatDuration(late)} over the last ${DRIFT_WINDOW} steps vs ${formatDuration(early)} over the first ${DRIFT_WINDOW} (${ratio})`,
        advice:
          ADVICE[phase] ??
          'Compare this phase across the run in the charts; a restart from the recover checkpoint tells whether the slowdown is state that builds up in the running processes.',
        step: w.recent[w.recent.length - 1].step,
      });
    }
    return out;
  }
}

const ADVICE: Record<string, string> = {
  update_weights:
    "The weight-sync blow-up: the broadcast to the SGLang servers slows as the run goes on. Resuming from the recover checkpoint (stop, relaunch the same experiment+trial) resets it; check the rollout servers' memory and the network between actor and rollout nodes.",
  rollout:
    'The trainer waits longer for each batch: episodes may be getting longer, Omniboxes slower, or rollout servers fewer. Check rollout/num_steps, [EPISODE_TIMEOUT] warnings and the rollout servers.',
  save: 'Checkpoints take longer to write: check the filesystem under cluster.fileroot (free space, other jobs writing).',
};
