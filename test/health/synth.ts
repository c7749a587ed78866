// Synthetic trainer event streams shaped like the real record sequence (fixture run-a): per step a
// batch record, the three controller Memory-Usage records, an optional checkpoint save, the step record.
import type { TrainerEvent, StepEvent } from '../../src/trainer-log/events.js';
import type { HealthEvent } from '../../src/health/index.js';

export const T0 = Date.UTC(2026, 4, 25, 12, 0, 0);

export function iso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

export interface StepPlan {
  rolloutS?: number;
  recomputeS?: number;
  advS?: number;
  ppoS?: number;
  updateS?: number;
  saveS?: number; // when set, a save record precedes the step record
  stats?: Record<string, number | null>;
}

const mem = (phase: string, t: number): TrainerEvent => ({
  type: 'memory',
  phase,
  allocatedGB: 18,
  reservedGB: 60,
  usedGB: 64,
  totalGB: 79.11,
  time: iso(t),
});

export function stepEvent(globalStep: number, t: number, stats: Record<string, number | null> = {}): StepEvent {
  return {
    type: 'step',
    epoch: 1,
    epochs: 10,
    step: globalStep,
    stepsPerEpoch: 1000,
    globalStep,
    totalSteps: 10000,
    time: iso(t),
    stats,
  };
}

/** Builds a run: a start record, then steps. Returns the events and the time after the last one. */
export class RunBuilder {
  events: HealthEvent[] = [];
  t: number;
  step = 0;

  constructor(start = T0, kind: 'start' | { resumeStep: number } = 'start') {
    this.t = start;
    if (kind === 'start') this.events.push({ type: 'start', time: iso(start) });
    else {
      this.events.push({ type: 'resume', resumeStep: kind.resumeStep, time: iso(start) });
      this.step = kind.resumeStep - 1;
    }
  }

  /** Appends one whole step; durations default to a typical ~10 min step. */
  addStep(p: StepPlan = {}): this {
    this.rollout(p.rolloutS ?? 560);
    this.t += (p.recomputeS ?? 30) * 1000;
    this.events.push(mem('recompute logp', this.t));
    this.t += (p.advS ?? 15) * 1000;
    this.events.push(mem('compute advantages', this.t));
    this.t += (p.ppoS ?? 30) * 1000;
    this.events.push(mem('ppo update', this.t));
    this.t += (p.updateS ?? 22) * 1000;
    if (p.saveS !== undefined) {
      this.events.push({
        type: 'save',
        time: iso(this.t),
        step: this.step,
        what: `HF + DCP checkpoints (periodic (1200s), step=${this.step})`,
      });
      this.t += p.saveS * 1000;
    }
    this.step += 1;
    this.events.push(stepEvent(this.step, this.t, p.stats ?? {}));
    return this;
  }

  steps(n: number, p: StepPlan | ((i: number) => StepPlan) = {}): this {
    for (let i = 0; i < n; i++) this.addStep(typeof p === 'function' ? p(i) : p);
    return this;
  }

  rollout(waitS: number): this {
    this.t += waitS * 1000;
    this.events.push({ type: 'batch', waitS, totalS: waitS + 4, episodes: 128, time: iso(this.t) });
    return this;
  }

  memory(phase: string, afterS: number): this {
    this.t += afterS * 1000;
    this.events.push(mem(phase, this.t));
    return this;
  }

  push(e: HealthEvent): this {
    this.events.push(e);
    return this;
  }

  /** `now` as a zone-less ISO string, `s` seconds after the last record. */
  after(s: number): string {
    return iso(this.t + s * 1000);
  }
}
