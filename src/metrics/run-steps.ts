// A run's chosen stats keys at EVERY global step, exactly (no buckets): what `compare` aligns and
// prints. After a resume the trainer logs again steps it had logged before the crash (its
// checkpoint was older); the latest incarnation's values stand, so a step at or before the last
// one drops what came from that step on, as Series.push does for the charts.
// Also the run's two other time axes, per step: training seconds (the gaps between a step and the
// record before it in the same process: the downtime between a crash and the restart is not
// counted, the restarted process's start-up is) and the episodes the step consumed (its rollout
// batch's `n_episodes`).
import type { TrainerEvent } from '../trainer-log/events.js';
import { stepColumns, stepValue } from '../trainer-log/stats-shapes.js';
import { isoTimeToMs } from '../trainer-log/text.js';
import { STEP_TIME_KEY } from './step-times.js';

export interface RunStepsOptions {
  /** Stats keys kept exactly (STEP_TIME_KEY: the derived step time). */
  keys: readonly string[];
  /** Every key that starts with one of these is kept too (`timeperf/`). */
  prefixes?: readonly string[];
}

/** One run's kept keys by step, oldest step first; every array has `steps.length` entries. */
export interface RunStepsView {
  steps: number[];
  /** Seconds of training the step took (null: unknown, e.g. no time on its record). */
  stepSeconds: (number | null)[];
  /** Episodes the step consumed (null: its batch record was not seen or said N/A). */
  episodes: (number | null)[];
  /** Naive-clock ms of the step's record (NaN: none). */
  timeMs: number[];
  values: Map<string, (number | null)[]>;
  /** Resume records seen (the run restarted from a checkpoint). */
  resumes: number;
  /** The `finished` record is the last thing the log says. */
  finished: boolean;
}

export class RunSteps {
  private readonly v: RunStepsView;
  private readonly keys: readonly string[];
  private readonly prefixes: readonly string[];
  /** When the record the next step's time counts from was written (null: none in this process). */
  private sinceMs: number | null = null;
  private lastStep: number | null = null;
  private batchEpisodes: number | null = null;

  constructor(o: RunStepsOptions) {
    this.keys = o.keys.filter((k) => k !== STEP_TIME_KEY);
    this.prefixes = o.prefixes ?? [];
    const values = new Map<string, (number | null)[]>();
    for (const k of o.keys) values.set(k, []);
    this.v = { steps: [], stepSeconds: [], episodes: [], timeMs: [], values, resumes: 0, finished: false };
  }

  ingest(e: TrainerEvent | { type: 'save' }): void {
    switch (e.type) {
      case 'step':
        return this.step(e);
      case 'batch':
        if (e.role === undefined || e.role === 'rollout') this.batchEpisodes = e.episodes;
        return;
      case 'resume':
      case 'start': {
        if (e.type === 'resume') this.v.resumes++;
        const ms = isoTimeToMs(e.time);
        this.sinceMs = Number.isFinite(ms) ? ms : null;
        this.lastStep = null;
        this.batchEpisodes = null;
        this.v.finished = false;
        return;
      }
      case 'finished':
        this.v.finished = true;
        return;
    }
  }

  private step(e: Extract<TrainerEvent, { type: 'step' }>): void {
    const g = e.globalStep;
    const v = this.v;
    v.finished = false;
    if (v.steps.length && g <= v.steps[v.steps.length - 1]) this.dropFrom(g);
    const ms = isoTimeToMs(e.time);
    // A step that does not advance within one process (a restart whose record we did not see):
    // its gap spans the downtime, so its time is unknown.
    const advances = this.lastStep === null || g > this.lastStep;
    const seconds =
      advances && this.sinceMs !== null && Number.isFinite(ms) && ms >= this.sinceMs
        ? (ms - this.sinceMs) / 1000 / (this.lastStep === null ? 1 : g - this.lastStep)
        : null;
    v.steps.push(g);
    v.stepSeconds.push(seconds);
    v.episodes.push(this.batchEpisodes);
    v.timeMs.push(ms);
    // The step time as the store derives it: between two steps of one process only.
    v.values.get(STEP_TIME_KEY)?.push(this.lastStep === null ? null : seconds);
    for (const k of this.keys) v.values.get(k)!.push(stepValue(e, k) ?? null);
    if (this.prefixes.length) this.prefixed(e);
    this.sinceMs = Number.isFinite(ms) ? ms : null;
    this.lastStep = g;
    this.batchEpisodes = null;
  }

  /** Keys under the prefixes: a key first seen at a later step has nulls before it. */
  private prefixed(e: Extract<TrainerEvent, { type: 'step' }>): void {
    const n = this.v.steps.length;
    const cols = stepColumns(e);
    const keys = cols ? cols.keys : Object.keys(e.stats);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      if (!this.prefixes.some((p) => k.startsWith(p)) || this.keys.includes(k)) continue;
      let arr = this.v.values.get(k);
      if (arr === undefined) this.v.values.set(k, (arr = new Array<number | null>(n - 1).fill(null)));
      if (arr.length < n - 1) arr.push(...new Array<number | null>(n - 1 - arr.length).fill(null));
      arr.push(cols ? cols.value(i) : (e.stats[k] ?? null));
    }
  }

  /** Drops step `g` and every later one (the latest incarnation logs them again). */
  private dropFrom(g: number): void {
    const v = this.v;
    let n = v.steps.length;
    while (n > 0 && v.steps[n - 1] >= g) n--;
    v.steps.length = n;
    v.stepSeconds.length = n;
    v.episodes.length = n;
    v.timeMs.length = n;
    for (const arr of v.values.values()) if (arr.length > n) arr.length = n;
  }

  /** The kept steps (prefixed keys padded to every step). Shares arrays: read, do not change. */
  view(): RunStepsView {
    const n = this.v.steps.length;
    for (const arr of this.v.values.values())
      if (arr.length < n) arr.push(...new Array<number | null>(n - arr.length).fill(null));
    return this.v;
  }
}

/** Cumulative hours of training at each step (the first step's own time included); null from
 *  the first step whose time is unknown on, as what follows it is then unknown too. */
export function trainingHours(v: Pick<RunStepsView, 'stepSeconds'>): (number | null)[] {
  let sum = 0;
  let known = true;
  return v.stepSeconds.map((s) => {
    if (s === null) known = false;
    else sum += s;
    return known ? sum / 3600 : null;
  });
}

/** Cumulative episodes consumed at each step; a step without a batch record counts
 *  `fallbackPerStep` (the config's consumer_batch_size) when known, else the sum is unknown from
 *  there on (null). */
export function samplesConsumed(v: Pick<RunStepsView, 'episodes'>, fallbackPerStep?: number): (number | null)[] {
  let sum = 0;
  let known = true;
  return v.episodes.map((e) => {
    const n = e ?? fallbackPerStep;
    if (n === undefined) known = false;
    else sum += n;
    return known ? sum : null;
  });
}

/** The time axes a baseline overlay can draw by (`t` on the dashboard). */
export type TimeAxis = 'steps' | 'hours' | 'samples';
export const TIME_AXES: readonly TimeAxis[] = ['steps', 'hours', 'samples'];

/** Points moved from global steps to another axis of their run: each point's x becomes the run's
 *  training hours or samples consumed at that step (`axisAt`, by step); a point whose step the run
 *  does not have, or whose axis value is unknown, is left out (never drawn at a guessed place). */
export function onAxis(
  p: { steps: readonly number[]; values: readonly (number | null)[] },
  run: Pick<RunStepsView, 'steps'>,
  axisAt: readonly (number | null)[],
): { steps: number[]; values: (number | null)[] } {
  const out = { steps: [] as number[], values: [] as (number | null)[] };
  let j = 0;
  for (let i = 0; i < p.steps.length; i++) {
    // Both step lists ascend: one forward pass.
    while (j < run.steps.length && run.steps[j] < p.steps[i]) j++;
    const x = run.steps[j] === p.steps[i] ? axisAt[j] : null;
    if (x === null || x === undefined) continue;
    out.steps.push(x);
    out.values.push(p.values[i]);
  }
  return out;
}
