// What a record means: error and warning kinds (trainer.md §5 "trouble signatures") and the
// controller messages that become events.
import type { ErrorKind, TrainerEvent, WarningKind } from './events.js';
import type { RecordHeader } from './header.js';

export function classifyError(text: string): ErrorKind {
  if (text.includes('CUDA out of memory') || text.includes('OutOfMemoryError')) return 'oom';
  if (text.includes('Watchdog caught collective operation timeout')) return 'nccl-timeout';
  if (text.includes('server launch failed')) return 'sglang-launch';
  if (/Worker '[^']*' failed with exit code/.test(text)) return 'worker-failed';
  if (text.includes('RayActorError') || text.includes('ActorDiedError')) return 'ray-actor-died';
  return 'other';
}

export function classifyWarning(message: string): WarningKind {
  if (message.includes('[EPISODE_TIMEOUT]')) return 'episode-timeout';
  if (message.includes('Instance alloc attempt')) return 'omniboxes-alloc';
  return 'other';
}

export const STEP_DONE = /^Epoch (\d+)\/(\d+) Step (\d+)\/(\d+) Train step (\d+)\/(\d+) done\./;
export const STATS_PART = /^Stats \((\d+)\/(\d+)\):/;
export const MEMORY =
  /^Memory-Usage (.*?): memory allocated \(GB\): ([-\d.e+]+|nan|inf), memory reserved \(GB\): ([-\d.e+]+|nan|inf), device memory used\/total \(GB\): ([-\d.e+]+|nan|inf)\/([-\d.e+]+|nan|inf)/;
export const RECOVER = /Recovering from StepInfo\([^)]*global_step=(\d+)/;
const BATCH_WAIT = /[ ,]wait=([-\d.e+]+)s?/;
const BATCH_TOTAL = /[ ,]total=([-\d.e+]+)s?/;
const BATCH_EPISODES = /[ ,]n_episodes=(\d+)/;

export function parseBatch(message: string): { waitS: number; totalS: number; episodes: number } | null {
  const w = BATCH_WAIT.exec(message);
  const t = BATCH_TOTAL.exec(message);
  const n = BATCH_EPISODES.exec(message);
  if (!w || !t || !n) return null;
  return { waitS: Number(w[1]), totalS: Number(t[1]), episodes: Number(n[1]) };
}

/** The event of a controller record (memory, batch timing, start, resume, finish), or null.
 *  The parser asks only for the controller's own (main) records: a worker writing the same
 *  words is not the run starting or ending. */
export function controllerEvent(h: RecordHeader): TrainerEvent | null {
  const msg = h.message;
  const time = h.time;
  if (msg.startsWith('Memory-Usage ')) {
    const m = MEMORY.exec(msg);
    if (m) return { type: 'memory', phase: m[1], allocatedGB: Number(m[2]), reservedGB: Number(m[3]), usedGB: Number(m[4]), totalGB: Number(m[5]), time };
  } else if (msg.startsWith('prepare_batch/rollout:')) {
    const b = parseBatch(msg);
    if (b) return { type: 'batch', waitS: b.waitS, totalS: b.totalS, episodes: b.episodes, time };
  } else if (msg.startsWith('Training completes!')) {
    return { type: 'finished', time };
  } else if (msg.startsWith('Resume info not found')) {
    return { type: 'start', time };
  } else if (msg.includes('Recovering from StepInfo(')) {
    const m = RECOVER.exec(msg);
    if (m) return { type: 'resume', resumeStep: Number(m[1]) + 1, time };
  }
  return null;
}

const CHAIN = /^(During handling of the above exception|The above exception was the direct cause)/;

/** The exception line of a Python traceback (`RuntimeError: ...`): the first unindented line
 *  after the frames of the last `Traceback (most recent call last):`. */
export function exceptionLine(lines: readonly string[]): string | null {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].startsWith('Traceback (most recent call last)')) { start = i; break; }
  }
  if (start < 0) return null;
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i];
    if (l === '' || l.startsWith(' ') || l.startsWith('\t') || CHAIN.test(l)) continue;
    return l;
  }
  return null;
}

export function isChainMarker(line: string): boolean {
  return CHAIN.test(line);
}
