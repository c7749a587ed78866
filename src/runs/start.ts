// Sends the one start script (start-scripts.ts) of a launch or resume, and reads what it says. The
// script writes run.json with the attempt itself, so the launcher writes nothing after a success
// (a launcher killed at that moment leaves a whole record). What only the head knows (the job's
// pid or job ids, its clock) goes into the final run.json as placeholders the script fills in.
import { directRunNodes } from './direct-nodes.js';
import type { Transport } from '../remote/transport.js';
import { remoteScript } from '../remote/quote.js';
import { setupInWorkdir, type Target } from './targets.js';
import { runLogPath, serializeRunRecord, type Attempt, type RunRecord } from './run-record.js';
import { sbatchArgs } from './slurm-batch.js';
import { listRuns, runsRoot } from './list.js';
import { LaunchCancelled, RunError } from './run-error.js';
import { CHAIN_MARK, JOB_MARK, NOW_MARK, PID_MARK, START_DIRECT_SCRIPT, SUBMIT_SLURM_SCRIPT } from './start-scripts.js';
import { holdAt } from './launch-hold.js';
import type { LaunchIo, LaunchResult } from './launch.js';

export interface StartFile {
  name: 'config.yaml' | 'job.sbatch' | 'run.json';
  mode: number;
  text: string;
}

export interface StartInput {
  record: RunRecord;
  mode: 'new' | 'resume';
  reason: Attempt['reason'];
  files: StartFile[];
  /** NAME=VALUE lines (collectSecrets). */
  secrets: string;
  /** null: --force (no rival check). */
  rivals: { key: string; allowed: string[] } | null;
  /** Target flags to repeat in advice. */
  where: string;
  io: LaunchIo;
  now: () => Date;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export async function runStartScript(transport: Transport, t: Target, s: StartInput): Promise<LaunchResult> {
  const { record } = s;
  const n = record.attempts.length + 1;
  const direct = record.backend === 'direct';
  const attempt = {
    n,
    reason: s.reason,
    startedAt: NOW_MARK,
    ...(direct ? { pid: PID_MARK } : { jobId: JOB_MARK }),
  } as unknown as Attempt;
  const final: RunRecord = {
    ...record,
    attempts: [...record.attempts, attempt],
    ...(direct ? {} : { chainJobIds: [CHAIN_MARK] }),
  };
  const stdin =
    s.secrets +
    s.files.map((f) => `@@file\t${f.name}\t${f.mode.toString(8)}\t${b64(f.text)}\n`).join('') +
    `@@final\t${b64(serializeRunRecord(final).trimEnd())}\n@@end\n`;
  const head = [
    runsRoot(t),
    record.runId,
    s.mode,
    s.rivals?.key ?? '',
    (s.rivals?.allowed ?? []).join(' '),
    s.io.hold ?? '',
  ];
  const argv = direct
    ? remoteScript(
        START_DIRECT_SCRIPT,
        [...head, String(n), record.workdir, t.setup ?? '', ...record.argv],
        'awrl-start',
      )
    : remoteScript(
        SUBMIT_SLURM_SCRIPT,
        [
          ...head,
          String(n),
          String(record.autoResume),
          setupInWorkdir(t),
          ...sbatchArgs(t, {
            runId: record.runId,
            runDir: record.runDir,
            nodes: record.nodes,
            gpusPerNode: record.gpusPerNode,
          }),
        ],
        'awrl-submit',
      );
  await holdAt(s.io.hold, 'before-start');
  if (s.io.signal?.aborted) {
    throw new LaunchCancelled(t.name);
  }
  // From here on the start is the target's: an interruption waits for its answer.
  s.io.onStarting?.(record.runId);
  const pending = transport.exec(argv, { stdin, ownSignals: true });
  await holdAt(s.io.hold, 'start-sent');
  let res;
  try {
    res = await pending;
  } catch (e) {
    return await afterLostAnswer(transport, t, s, e as Error);
  }
  const out = res.stdout.toString('utf8');
  const lines = out.split('\n');
  const field = (k: string) =>
    lines.filter((l) => l.startsWith(`@@${k} `) || l.startsWith(`@@${k}\t`)).map((l) => l.slice(k.length + 3).trim());
  const cleaned = field('cleaned');
  const why = oneLine(res.stderr);
  if (res.code === 4) {
    const rival = field('rival')[0] ?? '?';
    throw new RunError(
      `run ${rival} of this trial was launched at the same time on ${t.name}; ${record.runId} was not started and nothing of it was created: stop the other first (awrl-tui stop ${rival} ${s.where}) or pass --force`,
      2,
      'run-active',
    );
  }
  if (res.code === 2 || res.code === 3)
    throw new RunError(`${why || `the start script exited ${res.code}`} on ${t.name}`, res.code === 2 ? 2 : 1);
  const now = field('now')[0] ?? s.now().toISOString();
  if (direct) {
    const pid = Number(field('pid')[0]);
    if (res.code !== 0 || !Number.isInteger(pid) || pid <= 0)
      await startFailed(transport, s, `could not start the trainer on ${t.name}: ${why || `exit ${res.code}`}`);
    let done: RunRecord = { ...record, attempts: [...record.attempts, { n, reason: s.reason, startedAt: now, pid }] };
    done = await withDirectNodes(transport, t, done);
    return { record: done, runDir: record.runDir, logPath: runLogPath(record), pid, jobIds: [], cleaned };
  }
  const ids = field('job').filter((x) => /^\d+$/.test(x));
  if (res.code !== 0 || ids.length === 0)
    await startFailed(transport, s, `sbatch failed on ${t.name}: ${why || `exit ${res.code}`}`);
  // Attempt n is recorded now; later ones by the batch script's guard when Slurm starts them.
  const done: RunRecord = {
    ...record,
    attempts: [...record.attempts, { n, reason: s.reason, startedAt: now, jobId: ids[0] }],
    chainJobIds: ids.slice(1),
  };
  return { record: done, runDir: record.runDir, logPath: runLogPath(record), jobIds: ids, cleaned };
}

/** A multi-node direct run: the started attempt's nodes, head first by hostname (direct-nodes.ts),
 *  or why they are unknown, added to run.json once the run is whole (the start is already done). */
async function withDirectNodes(transport: Transport, t: Target, r: RunRecord): Promise<RunRecord> {
  if (r.nodes <= 1 && !r.nodeNames?.length) return r;
  const dn = await directRunNodes(transport, t, r.nodeNames ?? []).catch((e: Error) => ({
    nodes: [],
    unknown: e.message,
  }));
  const last = r.attempts.at(-1)!;
  const where = dn.unknown !== null ? { nodesUnknown: dn.unknown } : { nodes: dn.nodes };
  const next: RunRecord = { ...r, attempts: [...r.attempts.slice(0, -1), { ...last, ...where }] };
  await transport.writeFileAtomic(`${r.runDir}/run.json`, serializeRunRecord(next)).catch(() => undefined);
  return next;
}

/** The job did not start: a new run keeps saying why (its stdout.log may say more), not `starting`. */
async function startFailed(transport: Transport, s: StartInput, message: string): Promise<never> {
  if (s.record.attempts.length === 0) {
    const text = serializeRunRecord({ ...s.record, startError: message });
    await transport.writeFileAtomic(`${s.record.runDir}/run.json`, text).catch(() => undefined);
  }
  throw new RunError(message, 1);
}

/** The connection died while the script ran: it runs on by itself, so ask the target what it did. */
async function afterLostAnswer(transport: Transport, t: Target, s: StartInput, e: Error): Promise<LaunchResult> {
  const r = await listRuns(transport, t, { only: s.record.runId, tailBytes: 0 }).catch(() => null);
  const rec = r?.[0]?.record;
  const a = rec?.attempts[s.record.attempts.length];
  if (rec && a)
    return {
      record: rec,
      runDir: rec.runDir,
      logPath: runLogPath(rec),
      ...(a.pid ? { pid: a.pid } : {}),
      jobIds: a.jobId ? [a.jobId, ...rec.chainJobIds] : [],
      cleaned: [],
    };
  throw new RunError(
    `the connection to ${t.name} was lost while ${s.record.runId} was being started (${e.message}): whether it started is not known yet; see awrl-tui runs ${s.where}`,
    4,
  );
}

function oneLine(b: Buffer): string {
  return b.toString('utf8').trim().split('\n').slice(-3).join(' | ');
}
