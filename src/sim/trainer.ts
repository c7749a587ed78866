// The simulated trainer process: startup, recover, the step loop, faults, the end. All output goes
// through SimOutput (records) and the small disk helpers (recover info, live state); timing through
// SimClock. Returns the process exit code.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { SimOutput } from './output.js';
import { SimClock } from './clock.js';
import { type SimPlan, stepCoords } from './plan.js';
import { type Fault, type SimPhase, faultsAt, faultId } from './faults.js';
import { readMemo, writeMemo, readStepInfo, ensureWandbId, recoverInfoDir } from './recovery.js';
import { hostname } from 'node:os';
import { writeState, type StatePhase } from './state.js';
import { cleanSplitMessage, memoryMessage, stepInfoRepr, uncaughtTraceback } from './messages.js';
import { runStep, type StepContext } from './step.js';
import { wipeRootDumps } from './dump-writer.js';
import { workerMemoryEvent } from './truth.js';
import type { Level } from './records.js';
import { eventTime } from './pyfmt.js';
import { TestRolloutSim } from './test-rollout.js';
import { wandbFooter, wandbHeader, wandbRun, type WandbRun } from './wandb-banner.js';
import type { WandbEvent } from '../trainer-log/events.js';

/** Default pace: a nominal ~10-minute trainer step takes ~4 s. */
export const DEFAULT_SPEED = 150;
const WARM_FACTOR = 12;

export interface TrainerOptions {
  plan: SimPlan;
  resolvedConfig: Record<string, unknown>;
  /** The resolved config as YAML (config.yaml); falls back to dumping resolvedConfig. */
  resolvedYaml?: string;
  faults: Fault[];
  /** Nominal trainer seconds per real second, or 'instant' (no waiting; timestamps at the default pace). */
  speed: number | 'instant';
  truthPath?: string;
  /** Start-up and the first step at 1/WARM_FACTOR of their time (the demo's first step within seconds). */
  warmStart?: boolean;
  statePaths: string[];
  stdout: (text: string) => void;
  /** The process's stderr, where Python prints an uncaught exception (default: dropped). */
  stderr?: (text: string) => void;
}

export async function runTrainer(o: TrainerOptions): Promise<number> {
  const { plan } = o;
  const memo = readMemo(plan);
  const attempt = memo.attempts;
  // Time goes on from the previous process of this trial (see SimClock), however it ended.
  const clock = new SimClock(o.speed !== 'instant', memo.lastTimeMs ?? null);
  const ts = 1 / (o.speed === 'instant' ? DEFAULT_SPEED : o.speed);
  // Logged durations are scaled like the waits, so a warm start stays self-consistent in the logs.
  const startTs = o.warmStart ? ts / WARM_FACTOR : ts;
  const out = new SimOutput({
    logDir: plan.logDir,
    scheduler: plan.scheduler,
    writeStdout: o.stdout,
    truthPath: o.truthPath,
  });
  // This process's memo, always written whole (the fired faults and the clock share one file).
  const memoNow = { ...memo, attempts: attempt + 1, lastTimeMs: clock.now() };
  writeMemo(plan, memoNow);
  // webgym/train.py removes `logs/root/<exp>/<trial>/{rollout,test-rollout}/*` on every start.
  wipeRootDumps(plan);

  let phase: StatePhase = 'starting';
  let step = 0;
  const setPhase = (p: StatePhase, s = step): void => {
    phase = p;
    step = s;
    // Kept at every phase change, not at exit: a SIGKILL leaves no chance to write anything.
    memoNow.lastTimeMs = clock.now();
    writeMemo(plan, memoNow);
    writeState(o.statePaths, {
      pid: process.pid,
      phase,
      step,
      updatedMs: clock.now(),
      nNodes: plan.nNodes,
      gpusPerNode: plan.gpusPerNode,
      rolloutGpus: plan.rollout.gpus,
      actorGpus: plan.actor.gpus,
      seed: plan.seed,
      host: hostname(),
    });
  };
  const log = (logger: string, level: Level, message: string, traceback?: string) => ({
    timeMs: clock.now(),
    logger,
    level,
    message,
    traceback,
  });

  // SIGTERM as the trainer handles it: stop where it is, leave the logs whole, exit non-zero.
  const onSignal = (sig: NodeJS.Signals, code: number) => (): void => {
    const message = `Received ${sig}, stopping training at step ${step}.`;
    out.controller(log('RLTrainer', 'WARNING', message), {
      type: 'warning',
      kind: 'other',
      message,
      time: eventTime(clock.now()),
      source: 'main',
    });
    setPhase('stopped');
    process.exit(code);
  };
  const onTerm = onSignal('SIGTERM', 143);
  const onInt = onSignal('SIGINT', 130);
  process.once('SIGTERM', onTerm);
  process.once('SIGINT', onInt);
  try {
    return await train();
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
  }

  async function train(): Promise<number> {
    setPhase('starting');

    const tasksPerWorker = Math.floor(plan.maxConcurrentPerWorker / plan.nSamples);
    const tasksTotal = Math.floor(plan.maxConcurrentRollouts / plan.nSamples);
    out.controller(
      log(
        'WebGymTrain',
        'INFO',
        `GRPO: max_concurrent_per_worker ${plan.maxConcurrentPerWorker} episodes → ${tasksPerWorker} tasks (n_samples=${plan.nSamples})`,
      ),
    );
    out.controller(
      log(
        'WebGymTrain',
        'INFO',
        `GRPO: max_concurrent_rollouts ${plan.maxConcurrentRollouts} episodes → ${tasksTotal} tasks (n_samples=${plan.nSamples})`,
      ),
    );
    out.startFileLogging();
    // `experiment_name: auto` is replaced before the config is saved: the file names the real experiment.
    const yamlText = (o.resolvedYaml ?? stringify(o.resolvedConfig)).replace(
      /^(\s*experiment_name: )auto$/gm,
      `$1${plan.experimentName}`,
    );
    writeFileSync(join(plan.logDir, 'config.yaml'), yamlText);
    // StatsLogger.init: only id_suffix `timestamp` is kept in (and read from) {fileroot}/wandb_id.
    const wandbSuffix = plan.wandb.idSuffix === 'timestamp' ? ensureWandbId(plan, clock.now()) : plan.wandb.idSuffix;
    await clock.advance(2.8 * startTs);

    const sched =
      plan.scheduler === 'ray' ? 'RayScheduler' : plan.scheduler === 'slurm' ? 'SlurmScheduler' : 'LocalScheduler';
    if (plan.scheduler === 'ray') out.controller(log(sched, 'INFO', cleanSplitMessage(plan)));
    await clock.advance(0.1 * startTs);
    out.controller(
      log(
        sched,
        'INFO',
        `Creating ${plan.actor.gpus} workers for role '${plan.actor.name}' (strategy: SchedulingStrategyType.separation, colocate_with: None)`,
      ),
    );
    await clock.advance(60 * startTs);
    // A worker's own Memory-Usage record: a memory event of that worker (its source), not the controller's.
    const loaded = { allocatedGB: 16.42, reservedGB: 16.9, usedGB: 20.7, totalGB: 79.11 };
    out.worker(
      plan.actor.name,
      log('IOStruct', 'INFO', memoryMessage(loaded, 'after model creation/loading')),
      workerMemoryEvent(loaded, 'after model creation/loading', clock.now()),
    );
    await clock.advance(34 * startTs);
    out.controller(log('RolloutController', 'INFO', 'Creating workers via scheduler...'));
    await clock.advance(30 * startTs);
    const nRolloutWorkers = Math.max(1, Math.ceil(plan.rollout.dp / 16));
    const names = Array.from({ length: nRolloutWorkers }, (_, i) => `'${plan.rollout.name}/${i}'`).join(', ');
    out.controller(log('RolloutController', 'INFO', `Workers ready: [${names}]`));
    out.workerRaw(plan.rollout.name, 'TaskMonitor dashboard running at http://0.0.0.0:5003');
    await clock.advance(460 * startTs);
    out.controller(log('RolloutController', 'INFO', 'All engines are initialized...'));
    await clock.advance(9 * startTs);

    // StatsLogger's wandb.init() comes before the recover info is loaded (rl_trainer.py).
    const wandb = wandbRun(plan, plan.wandb, wandbSuffix, clock.now());
    const info = readStepInfo(plan);
    if (wandb) for (const l of wandbHeader(wandb, plan.wandb, plan.user, info !== null)) printed(l, wandb, true);
    out.controller(log('Recover', 'INFO', `Loading recover info from ${recoverInfoDir(plan)}`));
    let first = 1;
    if (info) {
      // The step that runs next, 0-based, as the trainer prints it.
      const next = info.global_step + 1;
      const c = stepCoords(plan, next + 1);
      out.controller(
        log('Recover', 'INFO', `Recovering from ${stepInfoRepr(c.epoch, c.epochStep, next, plan.stepsPerEpoch)}.`),
        {
          type: 'resume',
          resumeStep: next + 1,
          time: eventTime(clock.now()),
        },
      );
      first = next + 1;
    } else {
      out.controller(
        log(
          'Recover',
          'WARNING',
          `Resume info not found at ${recoverInfoDir(plan)}. This should not be a resumed experiment!`,
        ),
        {
          type: 'start',
          time: eventTime(clock.now()),
        },
      );
    }

    const ctx: StepContext = { plan, out, clock, ts, attempt, log, setPhase, nominalSinceSave: 0 };
    if (plan.testRollout) {
      // The eval thread, beside the steps on the same clock (a resumed process starts at round 0 again).
      const thread = new TestRolloutSim(plan, plan.testRollout, out, ts);
      thread.start(clock.now());
      clock.onAdvance = (now) => thread.pump(now);
      ctx.testRollout = thread;
    }
    const ended = (): void => {
      clock.onAdvance = null;
      const held = ctx.testRollout?.takeHeldTruth();
      if (held) out.truthOnly(held);
    };
    for (let g = first; g <= plan.lastStep; g++) {
      const active = faultsAt(o.faults, g).filter(
        (f) => !('step' in f && f.kind !== 'stall' && memo.fired.includes(faultId(f))),
      );
      const crash = active.find((f) => f.kind === 'nccl-timeout' || f.kind === 'oom');
      if (crash) {
        memoNow.fired = [...memo.fired, faultId(crash)];
        writeMemo(plan, memoNow);
      }
      ctx.ts = g === first ? startTs : ts; // (runStep also updates ctx's save bookkeeping: keep one ctx)
      const result = await runStep(ctx, g, active);
      if (result !== 'ok') {
        // AsyncWebRL's exit path (RLTrainer.__exit__): self.close() writes the end record on every
        // exit, then `raise exc_value`: Python prints the uncaught traceback to stderr. No
        // `finished` in the truth: a parser must not take this end record for a completion.
        ended();
        out.controller(log('StatsLogger', 'INFO', endMessage()));
        if (wandb) for (const l of wandbFooter(wandb)) printed(l, wandb, false);
        o.stderr?.(uncaughtTraceback(result.traceback));
        setPhase('crashed');
        return 1;
      }
    }
    ended();
    out.controller(log('StatsLogger', 'INFO', endMessage()), { type: 'finished', time: eventTime(clock.now()) });
    if (wandb) for (const l of wandbFooter(wandb)) printed(l, wandb, false);
    setPhase('finished', plan.lastStep);
    return 0;
  }

  /** A wandb line on the controller's output; the header's run line (or offline dir) is an event. */
  function printed(line: string, run: WandbRun, header: boolean): void {
    const ev: WandbEvent | undefined = !header
      ? undefined
      : run.url !== null && line.includes('View run at ')
        ? { type: 'wandb', url: run.url, time: null }
        : run.offline && line.includes('saved locally in ')
          ? { type: 'wandb', url: null, dir: run.dir, offline: true, time: null }
          : undefined;
    out.controllerRaw(line, ev);
  }

  function endMessage(): string {
    return `Training completes! Total time elapsed ${clock.elapsedS().toFixed(2)}.`;
  }
}

export type { SimPhase };
