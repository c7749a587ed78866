// runPreflight: one probe over the Transport, then the pure evaluation. The launcher calls this
// before every launch; `awrl-tui preflight` prints it.
import type { Transport } from '../remote/transport.js';
import { parseAllocationMode, type ConfigEvaluation } from '../config/index.js';
// preflight builds on runs (the batch script it tests, where runs live); runs imports nothing of preflight.
import { batchScript, forwardingFor, runsRoot, sbatchArgs, type Target } from '../runs/index.js';
import { evaluatePreflight } from './evaluate.js';
import { cfg } from './input.js';
import { runProbe, type ProbeParams } from './probe.js';
import { otherRunStates } from './other-runs.js';
import type { CheckResult, ProbeFacts } from './types.js';

export interface PreflightOptions {
  evaluation: Pick<ConfigEvaluation, 'resolved' | 'experimentName' | 'trialName' | 'launchArgv'>;
  target: Target;
  /** Names of the environment variables set locally (never their values). */
  envNames: ReadonlySet<string> | readonly string[];
  /** `--launch --resume`: the names the run forwarded when it was launched (runs/forwarding.ts). */
  previouslyForwarded?: readonly string[];
  /** The run id this launch will use: its own processes are not leftovers. */
  runId?: string;
  /** This launch is `--launch --resume RUN`: no recover checkpoint means it starts over (worth a warning). */
  resuming?: boolean;
  /** Other nodes of a multi-node direct run whose GPUs to check (over ssh from the head). */
  nodes?: string[];
  /** Typical step wall time for the Slurm time-limit check (default: the reference run's ~11 min). */
  typicalStepSeconds?: number;
  signal?: AbortSignal;
  /** Told of the probe's cancel on the target when `signal` aborts (probe.ts runProbe). */
  onCancel?: (done: Promise<unknown>) => void;
}

export interface PreflightReport {
  checks: CheckResult[];
  facts: ProbeFacts;
}

export async function runPreflight(transport: Transport, opts: PreflightOptions): Promise<CheckResult[]> {
  return (await runPreflightReport(transport, opts)).checks;
}

/** Same, keeping the raw facts (for `--json` and for debugging a surprising result). */
export async function runPreflightReport(transport: Transport, opts: PreflightOptions): Promise<PreflightReport> {
  const { evaluation: ev, target } = opts;
  const resolved = ev.resolved;
  if (!resolved || !ev.experimentName || !ev.trialName) {
    throw new Error('preflight needs a config without errors: run `awrl-tui config check` first');
  }
  const nodes = Number(cfg(resolved, 'cluster.n_nodes')) || 1;
  const perNode = Number(cfg(resolved, 'cluster.n_gpus_per_node')) || undefined;
  const datasets = ['train_dataset.path', 'valid_dataset.path']
    .map((k) => cfg(resolved, k))
    .filter((p): p is string => typeof p === 'string' && p !== '');
  const params: ProbeParams = {
    workdir: target.workdir,
    python: target.python,
    ...(target.setup ? { setup: target.setup } : {}),
    modelPath: String(cfg(resolved, 'actor.path') ?? ''),
    fileroot: String(cfg(resolved, 'cluster.fileroot') ?? ''),
    experiment: ev.experimentName,
    trial: ev.trialName,
    datasets,
    ...(opts.nodes ? { nodes: opts.nodes } : {}),
    // No step may run longer than the target's setup limit (default 60 s): stopped and named.
    ...(target.setupTimeoutS ? { stepLimitS: target.setupTimeoutS } : {}),
  };
  if (target.backend === 'slurm') {
    // The very script and options the launcher would submit, for a run dir that need not exist yet.
    const runId = opts.runId ?? 'preflight';
    const runDir = `${runsRoot(target)}/${runId}`;
    const argv = ev.launchArgv({ remoteConfigPath: `${runDir}/config.yaml`, python: target.python });
    params.slurm = {
      ...(target.slurm.partition ? { partition: target.slurm.partition } : {}),
      sbatchArgs: sbatchArgs(target, { runId, runDir, nodes, ...(perNode ? { gpusPerNode: perNode } : {}) }).filter(
        // --chdir/--output name the run dir, which a dry run does not create.
        (a) => !a.startsWith('--chdir=') && !a.startsWith('--output=') && a !== '--open-mode=append',
      ),
      batchScript: batchScript({
        runId,
        runDir,
        workdir: target.workdir,
        ...(target.setup ? { setup: target.setup } : {}),
        argv,
        nodes,
      }),
    };
  }
  const facts = await runProbe(transport, params, opts.signal, opts.onCancel);
  const others = facts.processes.map((p) => p.runId).filter((r): r is string => !!r && r !== opts.runId);
  const otherRuns = others.length > 0 ? await otherRunStates(transport, target, others) : undefined;
  const alloc = typeof resolved.allocation_mode === 'string' ? parseAllocationMode(resolved.allocation_mode) : null;
  let allocationGpus = alloc && alloc.ok ? alloc.totalGpus : null;
  if (allocationGpus !== null && cfg(resolved, 'test_rollout.enabled') === true) {
    allocationGpus += Number(cfg(resolved, 'test_rollout.n_gpus')) || 0;
  }
  const checks = evaluatePreflight({
    facts,
    resolved,
    experimentName: ev.experimentName,
    trialName: ev.trialName,
    target: {
      name: target.name,
      backend: target.backend,
      workdir: target.workdir,
      ...(target.sshConfigFile ? { sshConfigFile: target.sshConfigFile } : {}),
      python: target.python,
      ...(target.setup ? { setup: target.setup } : {}),
      slurm: target.slurm,
    },
    allocationGpus,
    secrets: forwardingFor(resolved, target, opts.envNames, opts.previouslyForwarded).secrets,
    envNames: new Set(opts.envNames),
    ...(opts.runId ? { runId: opts.runId } : {}),
    ...(otherRuns ? { otherRuns } : {}),
    ...(opts.resuming ? { resuming: true } : {}),
    ...(opts.typicalStepSeconds ? { typicalStepSeconds: opts.typicalStepSeconds } : {}),
  });
  return { checks, facts };
}
