// What a record means: error and warning kinds (trainer.md §5 "trouble signatures") and the
// controller messages that become events.
import type { ErrorKind, WarningKind } from './events.js';

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
