// What a record means: error and warning kinds (trainer.md §5 "trouble signatures") and the
// controller messages that become events.
import type { ErrorKind, MemoryEvent, TrainerEvent, WarningKind } from './events.js';
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
const BATCH_EPISODES = /[ ,]n_episodes=(\d+|N\/A)/;
/** `prepare_batch/<role>:`: the rollout role (an eval or test role too). */
const BATCH_ROLE = /^prepare_batch\/([^\s:]+):/;

export function parseBatch(
  message: string,
): { role: string; waitS: number; totalS: number; episodes: number | null } | null {
  const r = BATCH_ROLE.exec(message);
  const w = BATCH_WAIT.exec(message);
  const t = BATCH_TOTAL.exec(message);
  const n = BATCH_EPISODES.exec(message);
  if (!r || !w || !t || !n) return null;
  return { role: r[1], waitS: Number(w[1]), totalS: Number(t[1]), episodes: n[1] === 'N/A' ? null : Number(n[1]) };
}

/** Worker phases (`before/after model creation/loading`, `before/after offload model`, `after
 *  onload model`: an engine's own, areal/engine): a controller's stdout with the local scheduler
 *  holds its workers' output unprefixed, and an RL controller logs only its train-step phases
 *  (`recompute logp`, `ppo update`, …; an SFT trainer's `after train step` stays the controller's). */
const WORKER_PHASE = /^(?:before|after) .*\bmodel\b/;

/** The `Memory-Usage <phase>:` record of `source`, or null. `untagged`: a controller line without
 *  merged.log's `[main]` tag, which may be a worker's line tee'd into the controller's stdout. */
export function memoryEvent(h: RecordHeader, source: string, untagged: boolean): MemoryEvent | null {
  const m = MEMORY.exec(h.message);
  if (!m) return null;
  const phase = m[1];
  const src = source === 'main' && untagged && WORKER_PHASE.test(phase) ? 'worker' : source;
  return {
    type: 'memory',
    phase,
    allocatedGB: Number(m[2]),
    reservedGB: Number(m[3]),
    usedGB: Number(m[4]),
    totalGB: Number(m[5]),
    time: h.time,
    source: src,
  };
}

/** The event of a controller record (memory, batch timing, start, resume, finish), or null.
 *  The parser asks only for the controller's own (main) records: a worker writing the same
 *  words is not the run starting or ending. */
export function controllerEvent(h: RecordHeader, untagged: boolean): TrainerEvent | null {
  const msg = h.message;
  const time = h.time;
  if (msg.startsWith('Memory-Usage ')) {
    return memoryEvent(h, 'main', untagged);
  } else if (msg.startsWith('prepare_batch/')) {
    const b = parseBatch(msg);
    if (b) return { type: 'batch', waitS: b.waitS, totalS: b.totalS, episodes: b.episodes, time, role: b.role };
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

export function isChainMarker(line: string): boolean {
  return CHAIN.test(line);
}

/** The exception line of an error's detail (`RuntimeError: ...`): the first unindented line after
 *  the frames of its last `Traceback (most recent call last):` (the one Python prints last). For
 *  views that show one line of a detail the parser already kept whole. */
export function exceptionLine(lines: readonly string[]): string | null {
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (lines[i].includes('Traceback (most recent call last)')) {
      start = i;
      break;
    }
  }
  if (start < 0) return null;
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i];
    if (l === '' || l.startsWith(' ') || l.startsWith('\t') || CHAIN.test(l)) continue;
    return l;
  }
  return null;
}

// The lines of tracebacks and of the processes around the trainer (writers.ts reads records with them).

export const TRACEBACK = 'Traceback (most recent call last):';

export const WATCHDOG = 'Watchdog caught collective operation timeout';
export const SLURMSTEPD_ERROR = 'slurmstepd: error: ';
/** `slurmstepd: error: *** JOB 4242 ON node01 CANCELLED AT 2026-12-01T10:00:00 DUE TO TIME LIMIT ***`
 *  (the job's end; the `*** STEP …` lines that follow tell the same end of each step). */
export const SLURM_JOB_END = /^slurmstepd: error: \*\*\* JOB \d+ ON \S+ CANCELLED AT (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)/;
/** `slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks have
 *  been OOM Killed.`: the kernel killed a process for host memory. */
export const OOM_KILL = 'oom_kill event';
/** A C10 (glog-style) error line: `[rank3]:[E1129 12:01:02.123456 1234 ProcessGroupNCCL.cpp:616] `
 *  (PyTorch >= 2.3) or `[E ProcessGroupNCCL.cpp:475] ` (older). */
export const C10_ERROR_LINE = /^(?:\[rank\d+\]:)?\[[EF][^\]]*?[\w.\-]+\.(?:cpp|cc|cu|h|hpp):\d+\] /;

/** `  + Exception Group Traceback (most recent call last):`: an uncaught ExceptionGroup
 *  (asyncio.TaskGroup, anyio, `except*`), printed with a margin on every line. */
export const GROUP_START = /^ *\+ Exception Group Traceback \(most recent call last\):/;
/** A line of an exception group's traceback: its margin, then (after `| `) the line's text. */
export const GROUP_LINE = /^ *[|+]/;
const GROUP_TEXT = /^ *\| ?/;
/** An exception line (`torch.OutOfMemoryError: …`, `KeyboardInterrupt`,
 *  `ray.exceptions.RayTaskError(OutOfMemoryError): …`): a class name, capitalised, with its module. */
export const EXCEPTION_LINE = /^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:\([\w.]*\))?(?::|$)/;

/** The text of a line of an exception group's traceback that names an exception (the group's
 *  own, a sub-exception's), or null: a frame, a separator, a header, a chain line. */
export function groupException(body: string): string | null {
  const m = GROUP_TEXT.exec(body);
  if (m === null) return null;
  const text = body.slice(m[0].length);
  if (text === '' || isIndented(text) || text.endsWith(TRACEBACK) || isChainMarker(text)) return null;
  return EXCEPTION_LINE.test(text) ? text.trimEnd() : null;
}

/** WorkerFailedError's text goes on with the last 50 lines of the worker's own log, its records
 *  and traceback unprefixed (areal/infra/scheduler/exceptions.py, `\nStderr output:\n{stderr}`;
 *  local.py `_read_log_tail(log_file, lines=50)`; the Slurm scheduler puts `Job N STATE. Logs:`
 *  first). They are the error's detail, not records of the controller. The quote is those lines and
 *  the one after them (the tail's own newline: an empty line, or colorlog's reset of a logged
 *  message); a shorter tail (a young log) ends at the writer's next record, which is newer than
 *  the error, as the worker's records are not. */
export const STDERR_OUTPUT = 'Stderr output:';
export const QUOTED_LINES = 50;

/** A line that starts a traceback: at its start, or mid-line (SGLang's `Scheduler hit an
 *  exception: Traceback (most recent call last):`), or an exception group's. */
export function startsTraceback(body: string): boolean {
  return body.endsWith(TRACEBACK) || (body.charCodeAt(body.length - 1) === 0x20 && body.trimEnd().endsWith(TRACEBACK));
}

export const isIndented = (body: string): boolean => body.charCodeAt(0) === 0x20 || body.charCodeAt(0) === 0x09;
