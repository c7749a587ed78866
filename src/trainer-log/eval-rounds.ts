// webgym's test rollout rounds (areal/utils/test_rollout.py, async 01e3daef): a thread of the
// controller that evaluates the latest HF checkpoint on the held-out tasks, round after round, and
// logs (logger TestRollout; matched on the messages, not the logger's name):
//   `=== Test rollout round N starting ===`
//   `Blocking K websites for this round: ['a.com', …]` (the first 10, sorted)
//   `Filtered N tasks from blocked websites`
//   `Test rollout round N progress: reward=%.4f, num_steps=%.1f, completed=%d/%d, failed=%d,
//    elapsed=%.1fs, model_step=%d`
//   WARNING `Grace period expired: abandoning K remaining tasks as failures`
//   `Test rollout round N complete: reward=%.4f, num_steps=%.1f, completed=%d/%d, failed=%d,
//    time=%.1fs, model_step=%d`
// The round's per-difficulty figures are not on those lines: the training loop puts them into the
// stats table of the next train step (`test_rollout/trajectory/{easy,medium,hard}/…`, with
// `test_rollout/trajectory/round`). So a completed round is held until that step's table is read
// (or the next round completes, the process or the input ends) and emitted just before the step.
import type { EvalBucket, EvalEvent, EvalRoundExtras } from './events.js';
import type { RecordHeader } from './header.js';
import type { EventOut } from './event-out.js';
import type { StepCells, ValueArena } from './table-cells.js';
import { parseNumber, parseNumberBytes } from './text.js';

const NUM = '(-?[\\d.]+(?:e[-+]?\\d+)?|nan|-?inf)';
const START = /^=== Test rollout round (\d+) starting ===/;
const PROGRESS = new RegExp(
  `^Test rollout round (\\d+) progress: reward=${NUM}, num_steps=${NUM}, completed=(\\d+)/(\\d+), ` +
    `failed=(-?\\d+), elapsed=${NUM}s, model_step=(-?\\d+)`,
);
const COMPLETE = new RegExp(
  `^Test rollout round (\\d+) complete: reward=${NUM}, num_steps=${NUM}, completed=(\\d+)/(\\d+), ` +
    `failed=(-?\\d+), time=${NUM}s, model_step=(-?\\d+)`,
);
const BLOCKING = /^Blocking (\d+) websites for this round: \[(.*)\]/;
const FILTERED = /^Filtered (\d+) tasks from blocked websites/;
const ABANDONED = /^Grace period expired: abandoning (\d+) remaining tasks as failures/;
/** A Python str's repr in a printed list: '…' or "…" (backslash escapes kept as printed). */
const PY_STR = /'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g;
const TRAJ = 'test_rollout/trajectory/';
const BUCKETS = ['easy', 'medium', 'hard'] as const;

/** A number of a round's line (`%.4f`, `%.1f`; `nan`, `inf`, `-inf` too): the log's one number
 *  reader (text.ts), as the stats tables' cells are read. */
const pyNum = (s: string): number => parseNumber(s, 0, s.length) ?? Number.NaN;

/** The figures of a completed round's line: the `eval` event's, before its buckets, extras and time. */
type RoundFigures = Pick<
  EvalEvent,
  'round' | 'modelStep' | 'reward' | 'completed' | 'total' | 'failed' | 'numSteps' | 'timeS'
>;

interface HeldRound extends RoundFigures {
  extras: EvalRoundExtras;
  time: string;
}

/** The controller's test rollout records into `eval` and `eval-progress` events (one per parser). */
export class EvalRounds {
  private held: HeldRound | null = null;
  /** What the running round logged besides its progress (blocked websites, abandoned tasks). */
  private extras: EvalRoundExtras = {};

  constructor(private readonly out: EventOut) {}

  /** Nothing held and nothing kept of a running round (see TrainerLogParser#atRest). */
  get atRest(): boolean {
    return this.held === null && Object.keys(this.extras).length === 0;
  }

  /** A controller record; true when it was one of the test rollout's (it may still open a
   *  warning record: the grace period's WARNING stays a warning event too). */
  record(h: RecordHeader): boolean {
    const msg = h.message;
    const c = msg.charCodeAt(0);
    // The first letters of the messages above: most records are none of them.
    if (c !== 0x54 /* T */ && c !== 0x3d /* = */ && c !== 0x42 /* B */ && c !== 0x46 /* F */ && c !== 0x47 /* G */)
      return false;
    let m: RegExpExecArray | null;
    if (c === 0x54 && msg.startsWith('Test rollout round ')) {
      if ((m = PROGRESS.exec(msg)) !== null) return this.progress(m, h.time);
      if ((m = COMPLETE.exec(msg)) !== null) return this.complete(m, h.time);
      return false;
    }
    if (c === 0x3d && START.test(msg)) {
      // The next round starts at once, before the step that carries the held one's buckets.
      this.extras = {};
      return true;
    }
    if (c === 0x42 && (m = BLOCKING.exec(msg)) !== null) {
      const names: string[] = [];
      for (const s of m[2].matchAll(PY_STR)) names.push(s[1] ?? s[2]);
      this.extras.blockedWebsites = Number(m[1]);
      this.extras.blockedNames = names;
      return true;
    }
    if (c === 0x46 && (m = FILTERED.exec(msg)) !== null) {
      this.extras.blockedTasks = Number(m[1]);
      return true;
    }
    if (c === 0x47 && (m = ABANDONED.exec(msg)) !== null) {
      this.extras.abandoned = (this.extras.abandoned ?? 0) + Number(m[1]);
      return true;
    }
    return false;
  }

  /** A train step's complete table, before the step is emitted: the held round goes out first,
   *  with its difficulty buckets when this table carries the round. */
  beforeStep(cells: StepCells, arena: ValueArena): void {
    const held = this.held;
    if (held === null) return;
    const values = new Map<string, number | null>();
    for (let i = 0; i < cells.n; i++) {
      const k = cells.keys[i];
      if (k.startsWith(TRAJ))
        values.set(k.slice(TRAJ.length), parseNumberBytes(arena.buf, cells.starts[i], cells.ends[i]));
    }
    this.flush(values.get('round') === held.round ? buckets(values) : undefined);
  }

  /** The process or the input ended (attempt marker, end of input, exit status known). */
  close(): void {
    this.flush();
    this.extras = {};
  }

  /** Forget everything (the followed file was truncated). */
  reset(): void {
    this.held = null;
    this.extras = {};
  }

  private progress(m: RegExpExecArray, time: string): boolean {
    this.out.emit({
      type: 'eval-progress',
      round: Number(m[1]),
      modelStep: Number(m[8]),
      reward: pyNum(m[2]),
      completed: Number(m[4]),
      total: Number(m[5]),
      failed: Number(m[6]),
      elapsedS: pyNum(m[7]),
      ...this.extras,
      time,
    });
    return true;
  }

  private complete(m: RegExpExecArray, time: string): boolean {
    this.flush();
    this.held = {
      round: Number(m[1]),
      modelStep: Number(m[8]),
      reward: pyNum(m[2]),
      completed: Number(m[4]),
      total: Number(m[5]),
      failed: Number(m[6]),
      numSteps: pyNum(m[3]),
      timeS: pyNum(m[7]),
      extras: this.extras,
      time,
    };
    this.extras = {};
    return true;
  }

  private flush(byDifficulty?: EvalEvent['byDifficulty']): void {
    const r = this.held;
    if (r === null) return;
    this.held = null;
    const { extras, time, ...figures } = r;
    // The event's keys in the order of the JSON contract: the figures, buckets, extras, time.
    const ev = { type: 'eval', ...figures } as EvalEvent;
    if (byDifficulty !== undefined) ev.byDifficulty = byDifficulty;
    Object.assign(ev, extras);
    ev.time = time;
    this.out.emit(ev);
  }
}

/** The buckets a step table gives (`<bucket>/reward`, `num_steps`, `n_tasks`), or undefined. */
function buckets(values: Map<string, number | null>): EvalEvent['byDifficulty'] {
  const out: NonNullable<EvalEvent['byDifficulty']> = {};
  let any = false;
  for (const b of BUCKETS) {
    const reward = values.get(`${b}/reward`);
    const numSteps = values.get(`${b}/num_steps`);
    const n = values.get(`${b}/n_tasks`);
    if (reward == null || numSteps == null || n == null) continue;
    const bucket: EvalBucket = { reward, numSteps, n };
    out[b] = bucket;
    any = true;
  }
  return any ? out : undefined;
}
