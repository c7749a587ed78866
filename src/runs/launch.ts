// Launching (and relaunching) a run on a target: the run directory with config.yaml, run.json and
// stdout.log, then a detached job (direct) or an sbatch chain (slurm). Shared by `--launch`, the
// cockpit and `--demo`, so there is one way a run starts.
// All or nothing (issue #17): the checks read the target and create nothing; then ONE start script
// (start-scripts.ts) creates the run dir, starts the job and records it. An abort before that
// script is sent leaves nothing (LaunchCancelled); once sent it runs to its end on the target.
import type { Transport } from '../remote/transport.js';
import type { Target } from './targets.js';
import { makeRunId, parseRunRecord, serializeRunRecord, type PreflightSummary, type RunRecord } from './run-record.js';
import { batchScript } from './slurm-batch.js';
import { mayBeActive } from './run-state.js';
import { listRuns, runsRoot } from './list.js';
import { LaunchCancelled, RunError } from './run-error.js';
import { assertWorkdir, checkTwins, defaultWhere, stateWords, twinKey } from './twins.js';
import { runStartScript, type StartFile } from './start.js';

export { RunError, LaunchCancelled, type RunErrorKind } from './run-error.js';

export interface LaunchPlan {
  target: Target;
  /** The config file's text, uploaded byte for byte as `<run dir>/config.yaml`. */
  configText: string;
  experiment: string;
  trial: string;
  /** The trainer argv for a config uploaded at `remoteConfigPath` (the config engine's launchArgv). */
  trainerArgv(remoteConfigPath: string): string[];
  /** Names of environment variables to forward (values come from `io.env`). */
  secretNames: string[];
  /** cluster.n_nodes and cluster.n_gpus_per_node of the config (Slurm sizing, Ray for > 1 node). */
  nodes: number;
  gpusPerNode?: number;
  /** Slurm: resubmit after TIMEOUT/PREEMPTED/NODE_FAIL up to this many times. */
  autoResume?: number;
  /** Launch even when a run with the same experiment+trial is active. */
  force?: boolean;
  /** What the pre-flight found (kept in run.json), when one ran or was skipped. */
  preflight?: PreflightSummary;
  /** A direct run's nodes, given at launch (--node); none: discovered from its Ray cluster. */
  nodeNames?: string[];
}

export interface LaunchIo {
  /** Where secret values come from (normally process.env). */
  env: Record<string, string | undefined>;
  now?: () => Date;
  /** The pre-flight of this (re)launch, recorded in run.json. */
  preflight?: PreflightSummary;
  /** Aborted before the start script is sent: LaunchCancelled, nothing on the target. After: ignored. */
  signal?: AbortSignal;
  /** Called as the start script is sent: from then on the (re)launch finishes whatever happens. */
  onStarting?(runId: string): void;
  /** The target flags to repeat in advice (`--target T -F f --workdir W`); default --target/--workdir. */
  where?: string;
  /** Tests: AWRL_TEST_LAUNCH_HOLD (launch-hold.ts). */
  hold?: string;
  /** The twin check was done by the caller already (the CLI does it before the pre-flight). */
  twinsChecked?: { allowed: string[] };
}

export interface LaunchResult {
  record: RunRecord;
  runDir: string;
  logPath: string;
  pid?: number;
  jobIds: string[];
  /** Run dirs of interrupted launches the start script removed. */
  cleaned: string[];
}

/** NAME=VALUE lines for the remote script's stdin; a missing or multi-line value is an error. */
export function collectSecrets(names: string[], env: Record<string, string | undefined>): string {
  // The remote script refuses such a name, but only after the run dir exists: refuse it here first.
  const badName = names.filter((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  if (badName.length > 0)
    throw new RunError(
      `'${badName.join("', '")}' is not a usable environment variable name (letters, digits and _ only, not starting with a digit): rename it in the config`,
      2,
      'secret-missing',
    );
  const missing = names.filter((n) => env[n] === undefined || env[n] === '');
  if (missing.length > 0) {
    throw new RunError(
      `missing environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: the trainer needs ${missing.length > 1 ? 'them' : 'it'}; export ${missing.length > 1 ? 'them' : 'it'} before launching (the value is sent on the SSH channel's stdin only)`,
      2,
      'secret-missing',
    );
  }
  const bad = names.filter((n) => /[\n\r\0]/.test(env[n] ?? ''));
  if (bad.length > 0)
    throw new RunError(
      `environment variable ${bad.join(', ')} contains a line break or NUL and cannot be forwarded`,
      2,
      'secret-missing',
    );
  return names.map((n) => `${n}=${env[n]}\n`).join('');
}

function cancelledBefore(io: LaunchIo, t: Target): void {
  if (io.signal?.aborted) throw new LaunchCancelled(t.name);
}

export async function launchRun(plan: LaunchPlan, transport: Transport, io: LaunchIo): Promise<LaunchResult> {
  const secrets = collectSecrets(plan.secretNames, io.env);
  const t = plan.target;
  cancelledBefore(io, t);
  await assertWorkdir(transport, t);
  cancelledBefore(io, t);
  const twins =
    io.twinsChecked ??
    (await checkTwins(transport, t, {
      experiment: plan.experiment,
      trial: plan.trial,
      force: plan.force,
      where: io.where,
    }));
  cancelledBefore(io, t);
  const now = io.now ?? (() => new Date());
  const runId = makeRunId(plan.trial, now());
  const runDir = `${runsRoot(t)}/${runId}`;
  const argv = plan.trainerArgv(`${runDir}/config.yaml`);
  const record: RunRecord = {
    version: 1,
    runId,
    experiment: plan.experiment,
    trial: plan.trial,
    target: t.name,
    workdir: t.workdir,
    runDir,
    backend: t.backend,
    argv,
    secretNames: plan.secretNames,
    createdAt: now().toISOString(),
    attempts: [],
    chainJobIds: [],
    autoResume: t.backend === 'slurm' ? (plan.autoResume ?? 0) : 0,
    nodes: plan.nodes,
    gpusPerNode: plan.gpusPerNode,
    ...(plan.nodeNames?.length ? { nodeNames: plan.nodeNames } : {}),
    ...((plan.preflight ?? io.preflight) ? { preflight: plan.preflight ?? io.preflight } : {}),
  };
  const files: StartFile[] = [{ name: 'config.yaml', mode: 0o644, text: plan.configText }];
  if (t.backend === 'slurm')
    files.push({
      name: 'job.sbatch',
      mode: 0o755,
      text: batchScript({ runId, runDir, workdir: t.workdir, setup: t.setup, argv, nodes: plan.nodes }),
    });
  files.push({ name: 'run.json', mode: 0o644, text: serializeRunRecord(record) });
  return runStartScript(transport, t, {
    record,
    mode: 'new',
    reason: 'launch',
    files,
    secrets,
    rivals: plan.force ? null : { key: twinKey(plan.experiment, plan.trial), allowed: twins.allowed },
    where: io.where ?? defaultWhere(t),
    io,
    now,
  });
}

export interface ResumeIo extends LaunchIo {
  autoResume?: number;
  /** The names to forward, as decided with the run's config (forwarding.ts); default:
   *  those of the names the run forwarded before that are set now. */
  secretNames?: string[];
  /** A run that finished may be run again from its last checkpoint (the user said yes, or --force). */
  allowFinished?: boolean;
}

/** `--launch --resume RUN`: same config, argv, experiment and trial; a new attempt in the same run dir. */
export async function resumeRun(
  runId: string,
  transport: Transport,
  target: Target,
  io: ResumeIo,
): Promise<LaunchResult> {
  cancelledBefore(io, target);
  const all = await listRuns(transport, target, { tailBytes: 0 });
  const current = all.find((x) => x.runId === runId);
  const where = io.where ?? defaultWhere(target);
  if (!current)
    throw new RunError(`no run ${runId} on ${target.name} (see awrl-tui runs ${where})`, 2, 'run-not-found');
  if (mayBeActive(current.state)) {
    throw new RunError(
      `run ${runId} is ${current.state === 'unknown' ? 'of unknown state' : `still ${current.state}`} on ${target.name} (${current.detail}): nothing to resume`,
      2,
      'run-active',
    );
  }
  if (current.state === 'finished' && !io.allowFinished) throw finishedRefusal(runId, current.detail);
  const r = current.record;
  // Two trainers on one experiment+trial would write the same checkpoints.
  const twin = all.find(
    (x) =>
      x.runId !== runId && x.record.experiment === r.experiment && x.record.trial === r.trial && mayBeActive(x.state),
  );
  if (twin) {
    throw new RunError(
      `run ${twin.runId} of this trial is ${stateWords(twin)} on ${target.name}: stop it first (awrl-tui stop ${twin.runId} ${where})`,
      2,
      'run-active',
    );
  }
  if (r.backend !== target.backend) {
    throw new RunError(`run ${runId} was launched with backend ${r.backend}; resume it with --backend ${r.backend}`);
  }
  const names = io.secretNames ?? r.secretNames.filter((n) => (io.env[n] ?? '') !== '');
  const secrets = collectSecrets(names, io.env);
  cancelledBefore(io, target);
  const now = io.now ?? (() => new Date());
  const record: RunRecord = {
    ...r,
    secretNames: names,
    stopRequestedAt: undefined,
    startError: undefined,
    chainJobIds: [],
    autoResume: io.autoResume ?? r.autoResume,
    ...(io.preflight ? { preflight: io.preflight } : {}),
  };
  const files: StartFile[] = [];
  // Regenerated: the target's setup line may have changed since the first launch.
  if (r.backend === 'slurm')
    files.push({
      name: 'job.sbatch',
      mode: 0o755,
      text: batchScript({
        runId,
        runDir: r.runDir,
        workdir: r.workdir,
        setup: target.setup,
        argv: r.argv,
        nodes: r.nodes,
      }),
    });
  const same = all
    .filter((x) => x.record.experiment === r.experiment && x.record.trial === r.trial && !mayBeActive(x.state))
    .map((x) => x.runId);
  return runStartScript(transport, target, {
    record,
    mode: 'resume',
    reason: 'resume',
    files,
    secrets,
    rivals: { key: twinKey(r.experiment, r.trial), allowed: same },
    where,
    io,
    now,
  });
}

/** `run X finished …: resuming re-runs it from its last checkpoint`, for a resume not yet agreed to. */
export function finishedRefusal(runId: string, detail: string): RunError {
  return new RunError(
    `run ${runId} finished (${detail}): resuming runs it again from its last recover checkpoint (the steps after that checkpoint are trained again); pass --force to do so`,
    2,
    'run-finished',
  );
}

export async function writeRecord(transport: Transport, r: RunRecord): Promise<void> {
  await transport.writeFileAtomic(`${r.runDir}/run.json`, serializeRunRecord(r));
}

export async function readRecord(transport: Transport, runDir: string): Promise<RunRecord | null> {
  try {
    return parseRunRecord((await transport.readFile(`${runDir}/run.json`)).toString('utf8'));
  } catch {
    return null;
  }
}
