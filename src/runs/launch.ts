// Launching (and relaunching) a run on a target: the run directory with config.yaml, run.json and
// stdout.log, then a detached job (direct) or an sbatch chain (slurm). Shared by `--launch`, the
// cockpit and `--demo`, so there is one way a run starts.
import { directRunNodes } from './direct-nodes.js';
import type { Transport } from '../remote/transport.js';
import { remoteScript } from '../remote/quote.js';
import { setupInWorkdir, type Target } from './targets.js';
import { makeRunId, parseRunRecord, runLogPath, serializeRunRecord, type Attempt, type PreflightSummary, type RunRecord } from './run-record.js';
import { START_DIRECT_SCRIPT, SUBMIT_SLURM_SCRIPT, headNow } from './remote-scripts.js';
import { batchScript, sbatchArgs } from './slurm-batch.js';
import { mayBeActive } from './run-state.js';
import { listRuns, runsRoot } from './list.js';

/** A user-facing launch problem: one line, with the exit code the CLI should use. */
/** What a refusal is about, for a script's sake (`--json`'s error code); absent: only the exit
 *  code's broad meaning. */
export type RunErrorKind = 'usage' | 'run-not-found' | 'run-active' | 'secret-missing' | 'workdir-missing';

export class RunError extends Error {
  override name = 'RunError';
  constructor(
    message: string,
    readonly exitCode: number = 2,
    readonly kind?: RunErrorKind,
  ) {
    super(message);
  }
}

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
}

export interface LaunchResult {
  record: RunRecord;
  runDir: string;
  logPath: string;
  pid?: number;
  jobIds: string[];
}

/** NAME=VALUE lines for the remote script's stdin; a missing or multi-line value is an error. */
export function collectSecrets(names: string[], env: Record<string, string | undefined>): string {
  // The remote script refuses such a name, but only after the run dir exists: refuse it here first.
  const badName = names.filter((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  if (badName.length > 0) throw new RunError(`'${badName.join("', '")}' is not a usable environment variable name (letters, digits and _ only, not starting with a digit): rename it in the config`, 2, 'secret-missing');
  const missing = names.filter((n) => env[n] === undefined || env[n] === '');
  if (missing.length > 0) {
    throw new RunError(
      `missing environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: the trainer needs ${missing.length > 1 ? 'them' : 'it'}; export ${missing.length > 1 ? 'them' : 'it'} before launching (the value is sent on the SSH channel's stdin only)`,
      2,
      'secret-missing',
    );
  }
  const bad = names.filter((n) => /[\n\r\0]/.test(env[n] ?? ''));
  if (bad.length > 0) throw new RunError(`environment variable ${bad.join(', ')} contains a line break or NUL and cannot be forwarded`, 2, 'secret-missing');
  return names.map((n) => `${n}=${env[n]}\n`).join('');
}

export async function launchRun(plan: LaunchPlan, transport: Transport, io: LaunchIo): Promise<LaunchResult> {
  const secrets = collectSecrets(plan.secretNames, io.env);
  const t = plan.target;
  if ((await transport.stat(t.workdir)) === null) {
    throw new RunError(`workdir ${t.workdir} does not exist on ${t.name}: give --workdir the AsyncWebRL checkout there`, 2, 'workdir-missing');
  }
  if (!plan.force) {
    const active = (await listRuns(transport, t, { tailBytes: 0 })).find(
      (r) => r.record.experiment === plan.experiment && r.record.trial === plan.trial && mayBeActive(r.state),
    );
    if (active) {
      throw new RunError(
        `run ${active.runId} (experiment ${plan.experiment}, trial ${plan.trial}) is ${stateWords(active)} on ${t.name}: stop it first (awrl-tui stop ${active.runId}) or pass --force`,
        2,
        'run-active',
      );
    }
  }
  const now = io.now ?? (() => new Date());
  const runId = makeRunId(plan.trial, now());
  const runDir = `${runsRoot(t)}/${runId}`;
  const configPath = `${runDir}/config.yaml`;
  const argv = plan.trainerArgv(configPath);
  await transport.writeFileAtomic(configPath, plan.configText);
  await transport.writeFileAtomic(`${runDir}/stdout.log`, '');
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
  if (t.backend === 'slurm') {
    await transport.writeFileAtomic(`${runDir}/job.sbatch`, batchScript({ runId, runDir, workdir: t.workdir, setup: t.setup, argv, nodes: plan.nodes }), 0o755);
  }
  await writeRecord(transport, record);
  if (!plan.force) {
    // The check above and this run.json are two steps: two launches of the same trial at the same
    // moment both pass it. Now that ours is visible, look again; a rival still starting or started
    // wins (if both see each other, neither starts: safe, and the user tries again).
    const rival = (await listRuns(transport, t, { tailBytes: 0 })).find(
      (r) => r.runId !== runId && r.record.experiment === plan.experiment && r.record.trial === plan.trial && mayBeActive(r.state),
    );
    if (rival) {
      await writeRecord(transport, { ...record, startError: `not started: run ${rival.runId} of the same trial was launched at the same time` }).catch(() => undefined);
      throw new RunError(
        `run ${rival.runId} (experiment ${plan.experiment}, trial ${plan.trial}) was launched at the same time on ${t.name}; ${runId} was not started: stop the other first (awrl-tui stop ${rival.runId}) or pass --force`,
        2,
        'run-active',
      );
    }
  }
  try {
    return await start(transport, t, record, 'launch', secrets, now);
  } catch (e) {
    // Leave the run dir (its stdout.log may say why) but not as a run that is still starting.
    if (e instanceof RunError) await writeRecord(transport, { ...record, startError: e.message }).catch(() => undefined);
    throw e;
  }
}

/** `--launch --resume RUN`: same config, argv, experiment and trial; a new attempt in the same run dir. */
export async function resumeRun(
  runId: string,
  transport: Transport,
  target: Target,
  io: LaunchIo & { autoResume?: number },
): Promise<LaunchResult> {
  const all = await listRuns(transport, target, { tailBytes: 0 });
  const current = all.find((x) => x.runId === runId);
  if (!current) throw new RunError(`no run ${runId} on ${target.name} (see awrl-tui runs --target ${target.name})`, 2, 'run-not-found');
  if (mayBeActive(current.state)) {
    throw new RunError(`run ${runId} is ${current.state === 'unknown' ? 'of unknown state' : `still ${current.state}`} on ${target.name} (${current.detail}): nothing to resume`, 2, 'run-active');
  }
  const r = current.record;
  // Two trainers on one experiment+trial would write the same checkpoints.
  const twin = all.find((x) => x.runId !== runId && x.record.experiment === r.experiment && x.record.trial === r.trial && mayBeActive(x.state));
  if (twin) throw new RunError(`run ${twin.runId} (experiment ${r.experiment}, trial ${r.trial}) is ${stateWords(twin)} on ${target.name}: stop it first (awrl-tui stop ${twin.runId})`, 2, 'run-active');
  if (r.backend !== target.backend) {
    throw new RunError(`run ${runId} was launched with backend ${r.backend}; resume it with --backend ${r.backend}`);
  }
  const secrets = collectSecrets(r.secretNames, io.env);
  const now = io.now ?? (() => new Date());
  const record: RunRecord = { ...r, stopRequestedAt: undefined, startError: undefined, chainJobIds: [], autoResume: io.autoResume ?? r.autoResume, ...(io.preflight ? { preflight: io.preflight } : {}) };
  if (r.backend === 'slurm') {
    // Regenerated: the target's setup line may have changed since the first launch.
    await transport.writeFileAtomic(`${r.runDir}/job.sbatch`, batchScript({ runId, runDir: r.runDir, workdir: r.workdir, setup: target.setup, argv: r.argv, nodes: r.nodes }), 0o755);
  }
  try {
    return await start(transport, target, record, 'resume', secrets, now);
  } catch (e) {
    // A run that never started keeps saying why (its latest reason); one with attempts keeps its state.
    if (e instanceof RunError && record.attempts.length === 0) await writeRecord(transport, { ...record, startError: e.message }).catch(() => undefined);
    throw e;
  }
}

async function start(
  transport: Transport,
  t: Target,
  record: RunRecord,
  reason: Attempt['reason'],
  secrets: string,
  now: () => Date,
): Promise<LaunchResult> {
  const n = record.attempts.length + 1;
  const logPath = runLogPath(record);
  if (record.backend === 'direct') {
    const res = await transport.exec(
      remoteScript(START_DIRECT_SCRIPT, [record.runDir, record.runId, record.workdir, t.setup ?? '', String(n), ...record.argv], 'awrl-start'),
      { stdin: secrets },
    );
    const pid = Number(res.stdout.toString().trim().split('\n').pop());
    if (res.code !== 0 || !Number.isInteger(pid) || pid <= 0) {
      throw new RunError(`could not start the trainer on ${t.name}: ${oneLine(res.stderr) || `exit ${res.code}`}`, 1);
    }
    // A multi-node direct run: its nodes, head first by hostname (direct-nodes.ts), or why unknown.
    const dn = record.nodes > 1 || record.nodeNames?.length ? await directRunNodes(transport, t, record.nodeNames ?? []) : null;
    const where = dn ? (dn.unknown !== null ? { nodesUnknown: dn.unknown } : { nodes: dn.nodes }) : {};
    record.attempts = [...record.attempts, { n, reason, startedAt: headNow(res.stdout.toString('utf8')) ?? now().toISOString(), pid, ...where }];
    await writeRecord(transport, record);
    return { record, runDir: record.runDir, logPath, pid, jobIds: [] };
  }
  const args = sbatchArgs(t, { runId: record.runId, runDir: record.runDir, nodes: record.nodes, gpusPerNode: record.gpusPerNode });
  const res = await transport.exec(
    remoteScript(SUBMIT_SLURM_SCRIPT, [record.runDir, setupInWorkdir(t), String(n), String(record.autoResume), ...args], 'awrl-submit'),
    { stdin: secrets },
  );
  const ids = res.stdout.toString().split('\n').map((s) => s.trim()).filter((s) => /^\d+$/.test(s));
  if (res.code !== 0 || ids.length === 0) {
    throw new RunError(`sbatch failed on ${t.name}: ${oneLine(res.stderr) || `exit ${res.code}`}`, 1);
  }
  // Attempt n is recorded now; later ones by the batch script's guard when Slurm starts them.
  record.attempts = [...record.attempts, { n, reason, startedAt: headNow(res.stdout.toString('utf8')) ?? now().toISOString(), jobId: ids[0] }];
  record.chainJobIds = ids.slice(1);
  await writeRecord(transport, record);
  return { record, runDir: record.runDir, logPath, jobIds: ids };
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

/** `already running`, or for a run squeue could not be asked about, `of unknown state (why)`. */
function stateWords(r: { state: string; detail: string }): string {
  return r.state === 'unknown' ? `of unknown state (${r.detail})` : `already ${r.state}`;
}

function oneLine(b: Buffer): string {
  return b.toString('utf8').trim().split('\n').slice(-3).join(' | ');
}
