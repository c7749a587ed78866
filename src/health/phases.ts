// Which phase of a train step the trainer is in, inferred from its latest controller records, and how
// long each phase took so far in this run. The order per step (docs/trainer.md §5, fixture run-a):
//
//   step done / start / resume ──rollout_wait──▶ `prepare_batch/rollout:`
//     ──recompute_logp──▶ `Memory-Usage recompute logp` [──ref_logp──▶ `Memory-Usage ref logp`]
//     ──compute_advantages──▶ `Memory-Usage compute advantages` ──ppo_update──▶ `Memory-Usage ppo update`
//     ──update_weights──▶ `Saving … checkpoints` ──save──▶ `Train step … done.`
//                     └──────────────(no save this step)────────────────▶ `Train step … done.`
//
// A Memory-Usage record is written when its phase ENDS, so each record closes the phase it names and
// opens the next one. Evaluation (timeperf/eval) runs between the weight update and the step record and
// is counted in update_weights: the logs have no record that separates them.
import type { TrainerEvent } from '../trainer-log/events.js';
import type { CheckpointSaveEvent } from '../trainer-log/index.js';
import { naiveMs } from './time.js';
import { RecentWindow } from './window.js';

export type HealthEvent = TrainerEvent | CheckpointSaveEvent;

export const PHASES = [
  'rollout_wait',
  'recompute_logp',
  'ref_logp',
  'compute_advantages',
  'ppo_update',
  'update_weights',
  'save',
] as const;
export type Phase = (typeof PHASES)[number];

/** Words a user reads: what the trainer is doing in that phase. */
export const PHASE_LABEL: Record<Phase, string> = {
  rollout_wait: 'waiting for the rollout batch',
  recompute_logp: 'recomputing log-probs',
  ref_logp: 'computing reference log-probs',
  compute_advantages: 'computing advantages',
  ppo_update: 'the PPO update',
  update_weights: 'updating rollout weights',
  save: 'saving checkpoints',
};

export interface CurrentPhase {
  phase: Phase;
  /** Naive ms (see time.ts) of the record that opened the phase. */
  sinceMs: number;
  /** The 1-based global step in progress, when known. */
  step?: number;
}

// Memory-Usage phases of the controller that close a step phase; others (worker phases never reach
// here; unknown controller phases) leave the state as it is.
const MEMORY_CLOSES: Record<string, Phase> = {
  'recompute logp': 'recompute_logp',
  'ref logp': 'ref_logp',
  'compute advantages': 'compute_advantages',
  'ppo update': 'ppo_update',
};

export class PhaseTracker {
  private current: CurrentPhase | null = null;
  private readonly durations = new Map<Phase, RecentWindow>();
  private seenRefLogp = false;
  private lastGlobalStep: number | null = null;

  constructor(samplesPerPhase = 256) {
    for (const p of PHASES) this.durations.set(p, new RecentWindow(samplesPerPhase));
  }

  get phase(): CurrentPhase | null {
    return this.current;
  }

  /** Median duration in seconds of a phase in this run (recent window), and how many samples. */
  stats(phase: Phase): { medianS: number | null; samples: number } {
    const w = this.durations.get(phase)!;
    const m = w.median();
    return { medianS: m === null ? null : m / 1000, samples: w.size };
  }

  ingest(e: HealthEvent): void {
    const t = 'time' in e ? naiveMs(e.time) : null;
    switch (e.type) {
      case 'start':
      case 'resume':
        // A (re)started trainer goes straight to waiting for its first batch; whatever phase the
        // previous process was in never finished, so it gives no sample.
        this.current = null;
        if (e.type === 'resume') this.lastGlobalStep = e.resumeStep - 1;
        if (t !== null) this.open('rollout_wait', t);
        return;
      case 'batch':
        // Only the training rollout's batch ends the wait (an eval or test role's does not).
        if (e.role !== undefined && e.role !== 'rollout') return;
        return this.transition(t, ['rollout_wait'], 'recompute_logp');
      case 'memory': {
        // Only the controller's records mark its phases; a worker's are facts of its own GPU.
        if (e.source !== undefined && e.source !== 'main') return;
        const closes = MEMORY_CLOSES[e.phase];
        if (!closes) return;
        if (closes === 'ref_logp') this.seenRefLogp = true;
        const next: Phase =
          closes === 'recompute_logp'
            ? this.seenRefLogp
              ? 'ref_logp'
              : 'compute_advantages'
            : closes === 'ref_logp'
              ? 'compute_advantages'
              : closes === 'compute_advantages'
                ? 'ppo_update'
                : 'update_weights';
        // `ref logp` closes what we may have labelled compute_advantages before we knew the run has a
        // reference model: accept both labels.
        const from: Phase[] = closes === 'ref_logp' ? ['ref_logp', 'compute_advantages'] : [closes];
        return this.transition(t, from, next, closes);
      }
      case 'save':
        if (this.current?.phase === 'save') return; // several save records in one step: one phase
        return this.transition(t, ['update_weights'], 'save');
      case 'step':
        this.lastGlobalStep = e.globalStep;
        return this.transition(t, ['update_weights', 'save'], 'rollout_wait');
      case 'finished':
        this.current = null;
        return;
      case 'error':
        // A controller error usually ends the process (the fixture's NCCL watchdog). Stop the clock:
        // the run-state watcher and the error alert speak for it; the next record restarts tracking.
        if (e.source === undefined || e.source === 'main') this.current = null;
        return;
      default:
        return;
    }
  }

  /** Close the current phase (sampling its duration if it is one of `from`) and open `next`. */
  private transition(t: number | null, from: Phase[], next: Phase, sampleAs?: Phase): void {
    if (t === null) return;
    const cur = this.current;
    if (cur && from.includes(cur.phase)) {
      const d = t - cur.sinceMs;
      // Only forward time counts: a clock step or an out-of-order line gives no sample.
      if (d >= 0) this.durations.get(sampleAs ?? cur.phase)!.push(d);
    }
    this.open(next, t);
  }

  private open(phase: Phase, t: number): void {
    const step = this.lastGlobalStep === null ? undefined : this.lastGlobalStep + 1;
    this.current = step === undefined ? { phase, sinceMs: t } : { phase, sinceMs: t, step };
  }
}
