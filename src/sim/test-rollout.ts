// webgym's test rollout thread, simulated (areal/utils/test_rollout.py, async 01e3daef): rounds
// of held-out evaluation running beside the train steps, each on the latest HF checkpoint, with
// the thread's log lines (progress every `log_interval_frac` of the tasks, the grace period, the
// blocked websites) and its metrics in the step tables (`test_rollout/step/*` every step once a
// round reported; `test_rollout/trajectory/*` in the step that saves after a round completed).
// The thread runs on the simulated clock: `pump(now)` writes every line due by then, at its own
// time, so the log stays in time order between the trainer's records.
import type { SimOutput } from './output.js';
import type { LogRecord } from './records.js';
import type { SimPlan } from './plan.js';
import type { EvalBucket, EvalEvent, EvalProgressEvent, EvalRoundExtras, WarningEvent } from '../trainer-log/events.js';
import { Rng } from './rng.js';
import { eventTime, formatFixed, printedValue } from './pyfmt.js';

export interface TestRolloutPlan {
  nGpus: number;
  maxConcurrentPerGpu: number;
  /** Tasks per round (test_rollout.max_tasks, else the simulated test set's size). */
  tasks: number;
  logIntervalFrac: number;
  baseCheckpoint: string | null;
}

const WEBSITES = ['booking.com', 'expedia.com', 'allrecipes.com', 'github.com', 'amazon.com', 'espn.com'];
type Bucket = 'easy' | 'medium' | 'hard';
const bucketOf = (d: number): Bucket => (d <= 3 ? 'easy' : d <= 6 ? 'medium' : 'hard');

interface Episode {
  /** When its result was collected (simulated ms). */
  ms: number;
  reward: number;
  steps: number;
  difficulty: number;
  blocked: boolean;
}

interface Line {
  ms: number;
  level: 'INFO' | 'WARNING';
  message: string;
  event?: EvalEvent | EvalProgressEvent | WarningEvent;
}

interface Completed {
  event: EvalEvent;
  episodes: Episode[];
}

export class TestRolloutSim {
  private lines: Line[] = [];
  private round = 0;
  /** The model step the next round loads (the latest HF save). */
  private savedStep = -1;
  private savedPath: string | null = null;
  /** The global step of the weights the servers hold (-1: none loaded yet), `_loaded_global_step`. */
  private loadedStep = -1;
  /** A round that found no new checkpoint and waits for one (up to 120 s), from `since`. */
  private waiting: { since: number; deadline: number } | null = null;
  /** A round completed and asked for a save (should_save): the next step saves and logs its metrics. */
  private completed: Completed | null = null;
  /** The round in progress: its episodes (collected at their `ms`) and tasks. */
  private current: { episodes: Episode[]; tasks: number } | null = null;
  /** The last completed round's episodes: what get_step_metrics reports until the next round's first result. */
  private last: { episodes: Episode[]; tasks: number } | null = null;
  /** Websites blocked for the next rounds (site -> rounds left), as `_blocked_websites`. */
  private blocked = new Map<string, number>();
  /** The completed round whose `eval` truth event waits for the next step's table (as the parser). */
  private heldTruth: EvalEvent | null = null;
  private evalDumps: { modelStep: number; round: number; tasks: number }[] = [];

  constructor(
    private readonly plan: SimPlan,
    private readonly tr: TestRolloutPlan,
    private readonly out: SimOutput,
    /** Nominal trainer seconds → simulated seconds (the run's pace). */
    private readonly ts: number,
  ) {}

  /** The thread starts (`Test rollout thread started`) at `ms`; its servers come up, round 0 follows. */
  start(ms: number): void {
    this.say(ms, 'INFO', 'Test rollout thread started');
    this.say(ms + 1, 'INFO', `Launching ${this.tr.nGpus} test rollout SGLang servers...`);
    this.beginRound(this.say(ms + 300_000 * this.ts, 'INFO', 'Test rollout SGLang servers ready') + 1);
  }

  /** Writes every line due by `nowMs`. */
  pump(nowMs: number): void {
    const w = this.waiting;
    if (w !== null && w.deadline <= nowMs && (this.lines.length === 0 || this.lines[0].ms > w.deadline)) {
      this.waiting = null;
      const msg = `No new checkpoint after 120s wait (latest=${this.savedStep}, loaded=${this.loadedStep}). Reusing current weights.`;
      this.runRound(this.say(w.deadline, 'WARNING', msg) + 1, false);
    }
    let i = 0;
    while (i < this.lines.length && this.lines[i].ms <= nowMs) {
      const l = this.lines[i++];
      const rec: LogRecord = { timeMs: l.ms, logger: 'TestRollout', level: l.level, message: l.message };
      this.out.controller(rec, l.event?.type === 'eval' ? undefined : l.event);
      if (l.event?.type === 'eval') this.onComplete(l.event, l.ms);
    }
    this.lines = this.lines.slice(i);
  }

  /** The save reason of a step that saves for the eval (`test rollout`), or null. */
  saveReason(): string | null {
    return this.completed !== null ? 'test rollout' : null;
  }

  /** The HF checkpoint a save at (0-based) global step `g0` wrote: the next round loads it. */
  saved(g0: number, epoch: number, epochStep: number, nowMs: number): void {
    this.savedStep = g0;
    this.savedPath = `${this.plan.ckptDir}/default/epoch${epoch}epochstep${epochStep}globalstep${g0}`;
    const w = this.waiting;
    if (w === null || g0 <= this.loadedStep) return;
    // The waiting round polls every 10 s: it finds the save at its next look.
    this.waiting = null;
    const found = w.since + Math.ceil((nowMs - w.since) / (10_000 * this.ts)) * 10_000 * this.ts;
    const msg = `New checkpoint found after ${Math.round((found - w.since) / 1000 / this.ts)}s wait: step ${g0}`;
    this.runRound(this.say(Math.max(found, nowMs), 'INFO', msg) + 1, true);
  }

  /** The test rollout keys of the step being committed (get_step_metrics, then the iteration's
   *  when a save was requested; the request is then cleared), and the held round's truth event. */
  stepStats(nowMs: number): { stats: [string, number][]; evalTruth: EvalEvent | null } {
    const stats: [string, number][] = [];
    const now = this.current?.episodes.filter((e) => e.ms <= nowMs) ?? [];
    const running = now.some((e) => !e.blocked) ? { episodes: now, tasks: now.length } : this.last;
    if (running !== null) stats.push(...metrics('test_rollout/step', running.episodes, running.tasks));
    let evalTruth: EvalEvent | null = null;
    if (this.completed !== null) {
      const c = this.completed;
      stats.push(...metrics('test_rollout/trajectory', c.episodes, c.event.total));
      stats.push(['test_rollout/trajectory/round', c.event.round]);
      evalTruth = withBuckets(c.event, stats);
      this.completed = null;
      this.heldTruth = null;
    }
    return { stats, evalTruth };
  }

  /** The completed round not yet followed by a step (the parser emits it when the input ends). */
  /** The rounds completed since last asked (their eval episodes are dumped: dump-writer.ts). */
  takeEvalDumps(): { modelStep: number; round: number; tasks: number }[] {
    return this.evalDumps.splice(0);
  }

  takeHeldTruth(): EvalEvent | null {
    const e = this.heldTruth;
    this.heldTruth = null;
    return e;
  }

  private say(ms: number, level: 'INFO' | 'WARNING', message: string, event?: Line['event']): number {
    this.lines.push({ ms: Math.round(ms), level, message, ...(event ? { event } : {}) });
    return Math.round(ms);
  }

  private onComplete(e: EvalEvent, ms: number): void {
    this.evalDumps.push({ modelStep: e.modelStep, round: e.round, tasks: e.total });
    this.last = this.current;
    this.completed = { event: e, episodes: this.current?.episodes ?? [] };
    this.heldTruth = e;
    this.current = null;
    this.round++;
    this.beginRound(ms + 2);
  }

  /** A round starts at `ms`: it loads a checkpoint newer than the one loaded, or the base model
   *  first, or waits up to 120 s for the training loop's save (test_rollout.py's `_CKPT_WAIT_MAX`). */
  private beginRound(ms: number): void {
    const t = this.say(ms, 'INFO', `=== Test rollout round ${this.round} starting ===`) + 1;
    if (this.savedStep > this.loadedStep || this.loadedStep < 0) return this.runRound(t, true);
    const msg =
      `No new checkpoint found (latest=${this.savedStep}, loaded=${this.loadedStep}). ` +
      'Waiting up to 120s for checkpoint save to complete...';
    this.waiting = { since: this.say(t, 'INFO', msg), deadline: t + 120_000 * this.ts };
  }

  /** The rest of a round from `ms` (`load`: the newest weights): its lines, at their times, with
   *  seeded outcomes. */
  private runRound(ms: number, load: boolean): void {
    const r = this.round;
    let t = ms;
    if (load) {
      const base = this.savedStep < 0;
      const step = base ? 0 : this.savedStep;
      const path = (base ? this.tr.baseCheckpoint : this.savedPath) ?? '/models/base';
      t = this.say(t, 'INFO', `Loading weights from ${path} (step ${step})`) + 20_000 * this.ts;
      this.say(t, 'INFO', `Test rollout servers loaded weights (step ${step}): 20.0s`);
      this.loadedStep = step;
      t++;
    } else t = this.say(t, 'INFO', `Checkpoint step ${this.loadedStep} already loaded, reusing`) + 1;
    const step = Math.max(this.loadedStep, 0);
    const rng = Rng.of(this.plan.seed, 4242, r, step);
    t = this.say(t, 'INFO', `Submitting test rollout tasks (round=${r}, model_step=${step})...`) + 1;
    this.blocked = new Map([...this.blocked].filter(([, n]) => n > 1).map(([w, n]) => [w, n - 1]));
    const blockedNow = [...this.blocked.keys()].sort();
    let tasks = this.tr.tasks;
    // What the parser keeps with the round (EvalRoundExtras).
    const extras: EvalRoundExtras = {};
    if (blockedNow.length) {
      const names = blockedNow.slice(0, 10);
      const quoted = names.map((w) => `'${w}'`);
      t = this.say(t, 'INFO', `Blocking ${blockedNow.length} websites for this round: [${quoted.join(', ')}]`) + 1;
      const filtered = Math.min(tasks - 1, 3 * blockedNow.length);
      tasks -= filtered;
      t = this.say(t, 'INFO', `Filtered ${filtered} tasks from blocked websites`) + 1;
      Object.assign(extras, { blockedWebsites: blockedNow.length, blockedNames: names, blockedTasks: filtered });
    }
    const inflight = this.tr.maxConcurrentPerGpu * this.tr.nGpus;
    t = this.say(t, 'INFO', `Submitting ${tasks} test rollout tasks (max_inflight=${inflight})...`) + 1;
    // A policy that learns: success grows with the model step, less on hard tasks.
    const p = 0.3 + 0.3 * (1 - Math.exp(-step / 40));
    const episodes: Episode[] = [];
    const roundMs = (1200 + rng.uniform(0, 600)) * 1000 * this.ts;
    const interval = Math.max(1, Math.floor(tasks * this.tr.logIntervalFrac));
    const start = t;
    const abandon = rng.next() < 0.2 ? rng.int(1, 3) : 0;
    for (let i = 0; i < tasks - abandon; i++) {
      const difficulty = rng.int(1, 10);
      const pd = Math.min(0.95, Math.max(0.02, p + (difficulty <= 3 ? 0.2 : difficulty <= 6 ? 0 : -0.2)));
      const blocked = rng.next() < 0.01;
      const reward = rng.next() < pd ? 1 : 0;
      const at = start + (roundMs * (i + 1)) / tasks;
      episodes.push({ ms: at, reward, steps: rng.int(reward ? 3 : 8, reward ? 12 : 20), difficulty, blocked });
      if (blocked) this.blocked.set(WEBSITES[rng.int(0, WEBSITES.length - 1)], 2);
      const collected = i + 1;
      if (collected % interval === 0) {
        const counted = episodes.filter((e) => !e.blocked);
        const m = means(counted);
        const failed = collected - counted.length;
        const elapsed = (at - start) / 1000 / this.ts;
        const msg =
          `Test rollout round ${r} progress: reward=${formatFixed(m.reward, 4)}, num_steps=${formatFixed(m.allSteps(episodes), 1)}, ` +
          `completed=${counted.length}/${tasks}, failed=${failed}, elapsed=${formatFixed(elapsed, 1)}s, model_step=${step}`;
        this.say(at, 'INFO', msg, {
          type: 'eval-progress',
          round: r,
          modelStep: step,
          reward: Number(formatFixed(m.reward, 4)),
          completed: counted.length,
          total: tasks,
          failed,
          elapsedS: Number(formatFixed(elapsed, 1)),
          ...extras,
          time: eventTime(Math.round(at)),
        });
      }
    }
    let end = start + roundMs;
    if (abandon > 0) {
      this.say(end - 120_000 * this.ts, 'INFO', `Entering grace period: ${abandon} tasks remaining, deadline in 120s`);
      this.say(end, 'WARNING', `Grace period expired: abandoning ${abandon} remaining tasks as failures`, {
        type: 'warning',
        message: `Grace period expired: abandoning ${abandon} remaining tasks as failures`,
        kind: 'other',
        time: eventTime(Math.round(end)),
        source: 'main',
      });
      extras.abandoned = abandon;
      end += 1;
    }
    const counted = episodes.filter((e) => !e.blocked);
    const m = means(counted);
    const timeS = (end - start) / 1000 / this.ts;
    const ev: EvalEvent = {
      type: 'eval',
      round: r,
      modelStep: step,
      reward: Number(formatFixed(m.reward, 4)),
      completed: counted.length,
      total: tasks,
      failed: tasks - counted.length,
      numSteps: Number(formatFixed(m.allSteps(episodes), 1)),
      timeS: Number(formatFixed(timeS, 1)),
      ...extras,
      time: eventTime(Math.round(end)),
    };
    const msg =
      `Test rollout round ${r} complete: reward=${formatFixed(m.reward, 4)}, num_steps=${formatFixed(m.allSteps(episodes), 1)}, ` +
      `completed=${ev.completed}/${tasks}, failed=${ev.failed}, time=${formatFixed(timeS, 1)}s, model_step=${step}`;
    this.say(end, 'INFO', msg, ev);
    this.say(end + 1, 'INFO', `Requested checkpoint save from training loop (round ${r})`);
    this.current = { episodes, tasks };
  }
}

function means(counted: Episode[]) {
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return {
    reward: avg(counted.map((e) => e.reward)),
    allSteps: (all: Episode[]) => avg(all.map((e) => e.steps)),
  };
}

/** The keys get_step_metrics / get_iteration_metrics report for these episodes, under `prefix`. */
function metrics(prefix: string, episodes: Episode[], total: number): [string, number][] {
  const counted = episodes.filter((e) => !e.blocked);
  const avg = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const out: [string, number][] = [
    [`${prefix}/reward`, avg(counted.map((e) => e.reward))],
    [`${prefix}/n_tasks`, counted.length],
    [`${prefix}/n_failed`, total - counted.length],
    [`${prefix}/num_steps`, avg(episodes.map((e) => e.steps))],
  ];
  for (const [name, pick] of [
    ['success', (e: Episode) => e.reward > 0.5],
    ['failure', (e: Episode) => e.reward <= 0.5],
  ] as const)
    out.push([`${prefix}/${name}/num_steps`, avg(counted.filter(pick).map((e) => e.steps))]);
  for (const b of ['easy', 'medium', 'hard'] as const) {
    const inB = counted.filter((e) => bucketOf(e.difficulty) === b);
    if (!inB.length) continue;
    out.push([`${prefix}/${b}/reward`, avg(inB.map((e) => e.reward))]);
    out.push([`${prefix}/${b}/num_steps`, avg(inB.map((e) => e.steps))]);
    out.push([`${prefix}/${b}/n_tasks`, inB.length]);
  }
  return out;
}

/** The round's truth event with the buckets as the parser reads them back from the printed table. */
function withBuckets(e: EvalEvent, stats: [string, number][]): EvalEvent {
  const get = (k: string) => {
    const v = stats.find(([key]) => key === `test_rollout/trajectory/${k}`)?.[1];
    return v === undefined ? null : printedValue(v);
  };
  const by: NonNullable<EvalEvent['byDifficulty']> = {};
  for (const b of ['easy', 'medium', 'hard'] as const) {
    const reward = get(`${b}/reward`);
    const numSteps = get(`${b}/num_steps`);
    const n = get(`${b}/n_tasks`);
    if (reward !== null && numSteps !== null && n !== null) by[b] = { reward, numSteps, n } satisfies EvalBucket;
  }
  if (!Object.keys(by).length) return e;
  // In the event's field order: the buckets after timeS, before the round's extras and its time.
  const { type, round, modelStep, reward, completed, total, failed, numSteps, timeS, time, ...extras } = e;
  const head = { type, round, modelStep, reward, completed, total, failed, numSteps, timeS };
  return { ...head, byDifficulty: by, ...extras, time };
}
