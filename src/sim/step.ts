// One train step of the simulated trainer, phase by phase, with the faults that act on it. The
// record order per step follows the fixture: prepare_batch/rollout, Memory-Usage per phase (each
// written when its phase ends), [step_level_adv], [Saving … checkpoints], then the StatsLogger trio.
import type { SimOutput } from './output.js';
import type { SimClock } from './clock.js';
import { type SimPlan, stepCoords } from './plan.js';
import type { Fault, SimPhase } from './faults.js';
import type { Level, LogRecord } from './records.js';
import type { StatePhase } from './state.js';
import { stepDynamics } from './dynamics.js';
import { writeStepInfo } from './recovery.js';
import { tabulateStats } from './table.js';
import { eventTime, printedValue } from './pyfmt.js';
import { workerMemoryEvent } from './truth.js';
import { Rng } from './rng.js';
import type { TestRolloutSim } from './test-rollout.js';
import { writeEvalDumps, writeStepDumps } from './dump-writer.js';
import {
  batchMessage,
  memoryMessage,
  stepDoneMessage,
  ncclTraceback,
  oomWorkerTraceback,
  oomControllerTraceback,
  episodeTimeoutMessage,
  omniboxesAllocMessage,
} from './messages.js';

export interface StepContext {
  plan: SimPlan;
  out: SimOutput;
  clock: SimClock;
  /** Simulated seconds per nominal trainer second. */
  ts: number;
  attempt: number;
  log: (logger: string, level: Level, message: string, traceback?: string) => LogRecord;
  setPhase: (p: StatePhase, step?: number) => void;
  /** Nominal trainer seconds since the last recover checkpoint (recover.freq_secs counts these). */
  nominalSinceSave: number;
  /** webgym's test rollout thread, when enabled: it asks for the saves and adds its keys. */
  testRollout?: TestRolloutSim;
}

const has = (faults: readonly Fault[], kind: Fault['kind']): boolean => faults.some((f) => f.kind === kind);

/** A stall: the phase starts and nothing more happens (until SIGTERM, or for the given real seconds). */
async function maybeStall(faults: readonly Fault[], phase: SimPhase): Promise<void> {
  const f = faults.find((x) => x.kind === 'stall' && x.phase === phase);
  if (!f || f.kind !== 'stall') return;
  if (f.seconds === null) {
    await new Promise<never>(() => setInterval(() => undefined, 60_000)); // keep alive; SIGTERM ends it
  }
  await new Promise((r) => setTimeout(r, (f.seconds ?? 0) * 1000));
}

function recoverDue(ctx: StepContext, g: number): string | null {
  const { plan } = ctx;
  const { epochStep } = stepCoords(plan, g);
  if (plan.recoverFreqSteps && g % plan.recoverFreqSteps === 0) return `periodic (${plan.recoverFreqSteps} steps)`;
  if (plan.recoverFreqEpochs && epochStep === plan.stepsPerEpoch - 1) {
    const epoch = Math.floor((g - 1) / plan.stepsPerEpoch) + 1;
    if (epoch % plan.recoverFreqEpochs === 0) return `end of epoch ${epoch}`;
  }
  if (plan.recoverFreqSecs && ctx.nominalSinceSave >= plan.recoverFreqSecs)
    return `periodic (${plan.recoverFreqSecs}s)`;
  return null;
}

/** 'ok', or the crash: the controller's exception, as its traceback, which the process raises. */
export type StepResult = 'ok' | { crashed: true; traceback: string };

export async function runStep(ctx: StepContext, g: number, faults: readonly Fault[]): Promise<StepResult> {
  const { plan, out, clock, log } = ctx;
  const { epoch, epochStep } = stepCoords(plan, g);
  const noise = Rng.of(plan.seed, g, ctx.attempt, 7);
  const evalStep =
    plan.evalFreqEpochs !== null && epochStep === plan.stepsPerEpoch - 1 && (epoch + 1) % plan.evalFreqEpochs === 0;
  const timeouts = has(faults, 'episode-timeout') ? 3 : noise.next() < 0.15 ? 1 : 0;
  const omnibox = has(faults, 'omniboxes') ? 3 : 0;
  // Whether this step saves depends on time spent, known only after the phases: decide on nominal time
  // including this step's phases, computed from a dry run of the same seeded dynamics.
  const dryRun = stepDynamics({
    plan,
    step: g,
    attempt: ctx.attempt,
    timeScale: 1,
    zeroReward: false,
    nanGrad: false,
    omniboxFailures: omnibox,
    episodeTimeouts: timeouts,
    evalStep,
    saveStep: false,
  });
  ctx.nominalSinceSave += dryRun.durations.reduce((a, [, s]) => a + s, 0);
  // With the test rollout on, webgym saves only when a round asks (rl_trainer.py: no periodic save then).
  const saveReason = ctx.testRollout ? null : recoverDue(ctx, g);
  const d = stepDynamics({
    plan,
    step: g,
    attempt: ctx.attempt,
    timeScale: ctx.ts,
    zeroReward: has(faults, 'zero-reward'),
    nanGrad: has(faults, 'nan-grad'),
    omniboxFailures: omnibox,
    episodeTimeouts: timeouts,
    evalStep,
    saveStep: saveReason !== null,
  });
  const dur = (p: SimPhase): number => d.durations.find(([q]) => q === p)?.[1] ?? 0;
  const memory = (phase: string): void => {
    const m = d.memory.find((x) => x.phase === phase)!;
    out.controller(log('IOStruct', 'INFO', memoryMessage(m, phase)), {
      type: 'memory',
      phase,
      allocatedGB: m.allocatedGB,
      reservedGB: m.reservedGB,
      usedGB: m.usedGB,
      totalGB: m.totalGB,
      time: eventTime(clock.now()),
      source: 'main',
    });
  };
  const enter = async (p: SimPhase): Promise<void> => {
    ctx.setPhase(p, g);
    await maybeStall(faults, p);
  };

  await enter('rollout_wait');
  await clock.advance(d.batch.waitS / 2);
  const workerWarn = (message: string, kind: 'episode-timeout' | 'omniboxes-alloc'): void =>
    out.worker(plan.rollout.name, log('WebGymWorkflow', 'WARNING', message), {
      type: 'warning',
      kind,
      message,
      time: eventTime(clock.now()),
    });
  for (let i = 0; i < omnibox; i++) workerWarn(omniboxesAllocMessage(noise.int(1, 9999), i + 1, 5), 'omniboxes-alloc');
  for (let i = 0; i < timeouts; i++) workerWarn(episodeTimeoutMessage(noise.int(1, 9999), 45), 'episode-timeout');
  await clock.advance(d.batch.totalS - d.batch.waitS / 2);
  out.controller(log('RolloutController', 'INFO', batchMessage(d.batch)), {
    type: 'batch',
    waitS: d.batch.waitS,
    totalS: d.batch.totalS,
    episodes: d.batch.nEpisodes,
    time: eventTime(clock.now()),
    role: 'rollout',
  });
  writeStepDumps(plan, g, plan.stepsPerEpoch * plan.trainBatchSize);
  for (const d of ctx.testRollout?.takeEvalDumps() ?? []) writeEvalDumps(plan, d.modelStep, d.round, d.tasks);

  if (plan.offload) {
    // The actor worker's own record (a fact of its GPU, not the controller's): its model is back on the GPU.
    const m = { ...d.memory[0], allocatedGB: 16.42, reservedGB: 16.9, usedGB: 20.7 };
    out.worker(
      plan.actor.name,
      log('IOStruct', 'INFO', memoryMessage(m, 'after onload model')),
      workerMemoryEvent(m, 'after onload model', clock.now()),
    );
  }
  for (const [p, label] of [
    ['recompute_logp', 'recompute logp'],
    ['ref_logp', 'ref logp'],
    ['compute_advantages', 'compute advantages'],
  ] as const) {
    if (p === 'ref_logp' && plan.klCtl <= 0) continue;
    await enter(p);
    await clock.advance(dur(p));
    memory(label);
  }

  await enter('ppo_update');
  if (has(faults, 'oom')) {
    await clock.advance(dur('ppo_update') / 2);
    const rank = 3;
    const tried = 3.82;
    const free = 1.27;
    const wt = oomWorkerTraceback(rank, tried, free);
    out.worker(plan.actor.name, log(`[FSDPEngine Rank ${rank}]`, 'ERROR', 'Exception in train_batch', wt), {
      type: 'error',
      message: 'Exception in train_batch',
      detail: wt,
      kind: 'oom',
      time: eventTime(clock.now()),
    });
    await clock.advance(0.5);
    const ct = oomControllerTraceback(rank, tried, free, plan.scheduler === 'ray');
    out.controller(log('RLTrainer', 'ERROR', 'Training step failed', ct), {
      type: 'error',
      message: 'Training step failed',
      detail: ct,
      kind: 'oom',
      source: 'main',
      time: eventTime(clock.now()),
    });
    return { crashed: true, traceback: ct };
  }
  await clock.advance(dur('ppo_update'));
  memory('ppo update');
  out.controller(log('PPOActor', 'INFO', `[step_level_adv] eps=${plan.consumerBatchSize}`));

  await enter('update_weights');
  if (has(faults, 'nccl-timeout')) {
    // The weight broadcast never completes; the NCCL watchdog fires after its 2 h timeout.
    await clock.advance(7200 * ctx.ts);
    const tb = ncclTraceback(3);
    out.controller(log('RLTrainer', 'ERROR', 'Training step failed', tb), {
      type: 'error',
      message: 'Training step failed',
      detail: tb,
      kind: 'nccl-timeout',
      source: 'main',
      time: eventTime(clock.now()),
    });
    return { crashed: true, traceback: tb };
  }
  const evalS = d.stats.find(([k]) => k === 'timeperf/eval')?.[1] ?? 0;
  await clock.advance(dur('update_weights') + evalS);

  // should_save() is asked here, after the step's phases: a round that completed meanwhile counts.
  const evalSave = ctx.testRollout?.saveReason() ?? null;
  if (evalSave !== null) {
    out.controller(log('RLTrainer', 'INFO', `Saving HF + DCP checkpoints (${evalSave}, step=${g - 1})`));
    await enter('save');
    const saveS = 90 * ctx.ts;
    await clock.advance(saveS);
    const at = d.stats.findIndex(([k]) => k === 'timeperf/save');
    if (at >= 0) d.stats[at] = ['timeperf/save', saveS];
    writeStepInfo(plan, { epoch, epoch_step: epochStep, global_step: g - 1, steps_per_epoch: plan.stepsPerEpoch });
    ctx.testRollout?.saved(g - 1, epoch, epochStep, clock.now());
    ctx.nominalSinceSave = 0;
  }
  if (saveReason !== null) {
    // The trainer logs `Saving … checkpoints` first and then saves (trainer.md, run-a main.log), so a
    // stall while saving shows in the log as the save phase, not as update_weights.
    out.controller(log('RLTrainer', 'INFO', `Saving HF + DCP checkpoints (${saveReason}, step=${g - 1})`));
    await enter('save');
    await clock.advance(dur('save'));
    writeStepInfo(plan, { epoch, epoch_step: epochStep, global_step: g - 1, steps_per_epoch: plan.stepsPerEpoch });
    ctx.nominalSinceSave = 0;
  }

  await clock.advance(1.5 * ctx.ts);
  const tr = ctx.testRollout?.stepStats(clock.now());
  if (tr) {
    d.stats.push(...tr.stats);
    if (tr.evalTruth) out.truthOnly(tr.evalTruth);
  }
  const stats: Record<string, number | null> = {};
  for (const [k, v] of d.stats) stats[k] = printedValue(v);
  const time = eventTime(clock.now());
  out.controller(log('StatsLogger', 'INFO', stepDoneMessage(plan, epoch, epochStep, g - 1)), {
    type: 'step',
    epoch: epoch + 1,
    epochs: plan.epochs,
    step: epochStep + 1,
    stepsPerEpoch: plan.stepsPerEpoch,
    globalStep: g,
    totalSteps: plan.totalSteps,
    time,
    stats,
  });
  out.controller(log('StatsLogger', 'INFO', 'Stats (1/1):'));
  out.controller(log('StatsLogger', 'INFO', '\n' + tabulateStats(d.stats)));
  return 'ok';
}
