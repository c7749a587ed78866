// Listing runs on a target with their live state: one remote script reads every run.json, checks
// the job's process session, exit-status files, and (for Slurm) squeue, in one round trip.
import type { Transport } from '../remote/transport.js';
import { remoteScript } from '../remote/quote.js';
import { parseLogBytes, stepValue, stripAnsi, wandbEvent } from '../trainer-log/index.js';
import { setupInWorkdir, type Target } from './targets.js';
import { isValidRunId, parseRunRecord, type RunRecord, type RunState } from './run-record.js';
import { deriveRunState, type RunProbe } from './run-state.js';
import { LIST_SCRIPT, headNow, parseMarkedLines, toInt } from './remote-scripts.js';
import { FAILURE_TAIL_BYTES, lastLogLines } from './log-tail.js';
import { buildChain, chainFacts, emptyFacts, type AttemptSummary } from './attempt-chain.js';
import {
  NO_SENTINEL,
  parseSentinelBeat,
  sentinelView,
  type SentinelBeat,
  type SentinelView,
} from './sentinel-status.js';
import { isActive } from './run-state.js';
import { RunError } from './run-error.js';

export interface RunSummary {
  runId: string;
  record: RunRecord;
  state: RunState;
  detail: string;
  /** The last `Train step g/G done.` seen in the log's tail. */
  globalStep?: number;
  /** That step's time as the log prints it (no zone), e.g. `2026-11-29T10:06:30.250`. */
  lastStepAt?: string;
  totalSteps?: number;
  /** `rollout/reward` of that step as printed (NaN for nan, ±Infinity for inf; null: no number). */
  lastReward?: number | null;
  /** The latest attempt's exit status, when its job wrapper or batch script wrote one. */
  exitCode?: number;
  /** A failed run: the last lines of its log (why, when no trainer record says it). */
  lastLines?: string[];
  /** wandb's run as its banner in the log says (absent: the log's first 2 MiB show none: wandb
   *  disabled, not started yet, or not known): its URL, or an offline run's local dir. */
  wandb?: { url: string } | { url: null; offlineDir: string };
  /** Every attempt of the run, oldest first (only with `ListOptions.chain`). */
  chain?: AttemptSummary[];
  /** The run's sentinel (src/sentinel), as its heartbeat file and process say (absent: not listed). */
  sentinel?: SentinelView;
}

export type { AttemptSummary } from './attempt-chain.js';

export interface ListOptions {
  /** Bytes of stdout.log's end to read for step/reward (0: skip; default 256 KiB). */
  tailBytes?: number;
  /** Only this run id. */
  only?: string;
  /** Also each run's attempt chain (one more round trip, which reads every run's whole log once). */
  chain?: boolean;
  /** The log tails read before, by run id: a log whose size and mtime did not change is not sent
   *  again (its tail is taken from here); updated with what was read. */
  tails?: TailCache;
}

/** A run's log tail as last read, with the log's `SIZE MTIME` then. */
export type TailCache = Map<string, { stat: string; tail: Buffer }>;

/** The known lines for the list script: `ID SIZE MTIME` of each cached tail. */
const knownTails = (cache: TailCache | undefined): string =>
  cache ? [...cache].map(([id, c]) => `${id} ${c.stat}`).join('\n') : '';

export const runsRoot = (t: Pick<Target, 'workdir'>): string => `${t.workdir.replace(/\/+$/, '')}/.awrl/runs`;

export async function listRuns(transport: Transport, target: Target, opts: ListOptions = {}): Promise<RunSummary[]> {
  return (await listRunsOnHead(transport, target, opts)).runs;
}

/** The runs, and the head's clock when it listed them (null when it could not say). */
export async function listRunsOnHead(
  transport: Transport,
  target: Target,
  opts: ListOptions = {},
): Promise<{ runs: RunSummary[]; headNow: string | null }> {
  if (opts.only !== undefined && !isValidRunId(opts.only)) return { runs: [], headNow: null };
  const tailBytes = opts.tailBytes ?? 256 * 1024;
  const res = await transport.exec(
    remoteScript(
      LIST_SCRIPT,
      [runsRoot(target), opts.only ?? '*', setupInWorkdir(target), String(tailBytes), knownTails(opts.tails)],
      'awrl-list',
    ),
  );
  if (res.code !== 0) {
    // A RunError (exit 1, remote-failed): the launch's twin check says it as `runs` does, not as a bug.
    throw new RunError(
      `listing runs on ${target.name} failed: ${res.stderr.toString().trim().split('\n').pop() ?? `exit ${res.code}`}`,
      1,
    );
  }
  const text = res.stdout.toString('utf8');
  const runs = parseListOutput(text, opts.tails, opts.only).map((r) =>
    // An unreadable run.json's stand-in: where the run is, as this target says.
    r.record.runDir === ''
      ? { ...r, record: { ...r.record, workdir: target.workdir, runDir: `${runsRoot(target)}/${r.runId}` } }
      : r,
  );
  const now = headNow(text);
  if (!opts.chain || runs.length === 0) return { runs, headNow: now };
  const facts = await chainFacts(transport, target, runsRoot(target), runs);
  const probes = parseProbes(text);
  return {
    runs: runs.map((r) => ({
      ...r,
      chain: buildChain(r.record, r.state, probes.get(r.runId) ?? EMPTY_PROBE, facts.get(r.runId) ?? emptyFacts(), r),
    })),
    headNow: now,
  };
}

interface Raw {
  runId: string;
  record: RunRecord | null;
  probe: RunProbe;
  sentinel?: { beat: SentinelBeat | null; alive: boolean };
  wandb?: RunSummary['wandb'];
}

/** `tail -v` output over several logs -> run id (the log's directory name) -> its last bytes. */
function splitTails(b64: string): Map<string, Buffer> {
  const all = Buffer.from(b64, 'base64');
  // latin1 keeps one char per byte, so string offsets are byte offsets.
  const text = all.toString('latin1');
  const header = /(?:^|\n)==> (.*?) <==\n/g;
  const heads: Array<{ path: string; start: number; end: number }> = [];
  for (let m = header.exec(text); m; m = header.exec(text))
    heads.push({ path: m[1], start: m.index, end: m.index + m[0].length });
  const out = new Map<string, Buffer>();
  heads.forEach((h, i) => {
    const id = h.path.split('/').slice(-2, -1)[0];
    if (id) out.set(id, all.subarray(h.end, i + 1 < heads.length ? heads[i + 1].start : all.length));
  });
  return out;
}

/** What the list script said about each run's jobs (for the chain). */
export interface ListProbe {
  slurm: Record<string, string>;
  slurmExit: Record<string, number>;
  exitCode?: number | null;
  /** Direct: attempt number -> that attempt's own exit status (attempt-exit.N). */
  attemptExit?: Record<number, number>;
}
export const EMPTY_PROBE: ListProbe = { slurm: {}, slurmExit: {} };

function parseProbes(text: string): Map<string, ListProbe> {
  const { raws, slurm } = parseRaw(text);
  return new Map(
    raws.map((r) => [
      r.runId,
      {
        slurm,
        slurmExit: r.probe.slurmExit ?? {},
        ...(r.probe.exitCode !== undefined ? { exitCode: r.probe.exitCode } : {}),
        ...(r.probe.attemptExit ? { attemptExit: r.probe.attemptExit } : {}),
      },
    ]),
  );
}

function parseRaw(text: string) {
  const raws: Raw[] = [];
  const slurm: Record<string, string> = {};
  let squeueFailed: string | undefined;
  let tails = new Map<string, Buffer>();
  const logStats = new Map<string, string>();
  for (const [key, f] of parseMarkedLines(text)) {
    const cur = raws[raws.length - 1];
    if (key === 'run') raws.push({ runId: f[0], record: null, probe: { slurmExit: {} } });
    else if (key === 'logstat') logStats.set(f[0], f[1] ?? '');
    else if (key === 'squeue') slurm[f[0]] = f[1];
    else if (key === 'squeuefailed') squeueFailed = f[1] || `exit ${f[0]}`;
    else if (key === 'tails') tails = splitTails(f[0] ?? '');
    else if (!cur) continue;
    else if (key === 'json') cur.record = parseRunRecord(f[0]);
    else if (key === 'sentinel') cur.sentinel = { alive: f[0] === '1', beat: parseSentinelBeat(f.slice(1).join('\t')) };
    else if (key === 'wandb') {
      const w = wandbEvent(stripAnsi(f[0] ?? ''));
      if (w?.url) cur.wandb = { url: w.url };
      else if (w?.dir) cur.wandb = { url: null, offlineDir: w.dir };
    } else if (key === 'alive') {
      cur.probe.alive = f[0] === '1';
      if (f[0] === '?') cur.probe.aliveUnknownAs = f[1] || 'this user';
    } else if (key === 'launching') cur.probe.launching = f[0] === '1';
    else if (key === 'exit') cur.probe.exitCode = toInt(f[0]);
    else if (key === 'aexit') {
      const n = toInt(f[0]);
      const code = toInt(f[1]);
      if (n !== null && code !== null) (cur.probe.attemptExit ??= {})[n] = code;
    } else if (key === 'sexit') {
      const code = toInt(f[1]);
      if (code !== null) cur.probe.slurmExit![f[0]] = code;
    }
  }
  return { raws, slurm, squeueFailed, tails, logStats };
}

/** Tails not sent because they did not change come from the cache; the cache takes what was sent
 *  and forgets runs whose log is gone. Only a listing of every run prunes (`only` lists one). */
function reconcileTails(
  tails: Map<string, Buffer>,
  logStats: ReadonlyMap<string, string>,
  cache: TailCache,
  prune: boolean,
): void {
  for (const [id, stat] of logStats) {
    const fresh = tails.get(id);
    const kept = cache.get(id);
    if (fresh) cache.set(id, { stat, tail: fresh });
    else if (kept && kept.stat === stat && stat !== '') tails.set(id, kept.tail);
  }
  if (prune) for (const id of [...cache.keys()]) if (!logStats.has(id)) cache.delete(id);
}

/** The list script's marked lines -> summaries (pure; exported for tests). */
export function parseListOutput(text: string, cache?: TailCache, only?: string): RunSummary[] {
  const { raws, slurm, squeueFailed, tails, logStats } = parseRaw(text);
  const now = headNow(text);
  if (cache) reconcileTails(tails, logStats, cache, only === undefined);
  const out: RunSummary[] = [];
  for (const raw of raws) {
    if (!raw.record) {
      // A run.json cut short (a disk that filled mid-write) or corrupt: the run is listed, its state
      // unknown with the reason, what its pid file says about its job kept in the detail.
      out.push(unreadableRun(raw.runId, raw.probe.alive));
      continue;
    }
    const d = deriveRunState(raw.record, {
      ...raw.probe,
      slurm,
      ...(squeueFailed !== undefined ? { squeueFailed } : {}),
    });
    const job = raw.record.attempts[raw.record.attempts.length - 1]?.jobId;
    const exitCode =
      raw.record.backend === 'slurm'
        ? job !== undefined
          ? raw.probe.slurmExit?.[job]
          : undefined
        : raw.probe.exitCode;
    const exit = typeof exitCode === 'number' ? { exitCode } : {};
    const tail = tails.get(raw.runId);
    const why =
      d.state === 'failed' && tail
        ? { lastLines: lastLogLines(tail.subarray(-FAILURE_TAIL_BYTES), undefined, true) }
        : {};
    out.push({
      runId: raw.runId,
      record: raw.record,
      state: d.state,
      detail: d.detail,
      ...exit,
      ...why,
      ...(raw.wandb ? { wandb: raw.wandb } : {}),
      ...lastStep(tail),
      sentinel: raw.sentinel
        ? sentinelView(raw.sentinel.beat, raw.sentinel.alive, now, isActive(d.state))
        : NO_SENTINEL,
    });
  }
  return out.sort((a, b) => a.record.createdAt.localeCompare(b.record.createdAt));
}

/** A run whose run.json cannot be read: a stand-in record (its run dir filled in by the caller, who
 *  knows the target), state `unknown`. */
function unreadableRun(runId: string, alive: boolean | undefined): RunSummary {
  const job =
    alive === true
      ? 'its job (job.pid) is alive'
      : alive === false
        ? 'its job (job.pid) is not running'
        : 'its job is unknown';
  return {
    runId,
    record: {
      ...{ version: 1, runId, experiment: '?', trial: '?', target: '', workdir: '', runDir: '', backend: 'direct' },
      ...{ argv: [], secretNames: [], createdAt: '', attempts: [], chainJobIds: [], autoResume: 0, nodes: 1 },
    },
    state: 'unknown',
    detail: `run.json unreadable (cut short or corrupt); ${job}`,
  };
}

function lastStep(
  tail: Buffer | undefined,
): Pick<RunSummary, 'globalStep' | 'lastStepAt' | 'totalSteps' | 'lastReward'> {
  if (!tail) return {};
  let bytes = tail;
  // The tail starts mid-line (mid-table, even): begin at the first full line.
  const nl = bytes.indexOf(0x0a);
  bytes = nl >= 0 ? bytes.subarray(nl + 1) : bytes;
  let found: Pick<RunSummary, 'globalStep' | 'lastStepAt' | 'totalSteps' | 'lastReward'> = {};
  for (const e of parseLogBytes(bytes)) {
    if (e.type === 'step')
      found = {
        globalStep: e.globalStep,
        lastStepAt: e.time,
        totalSteps: e.totalSteps,
        lastReward: stepValue(e, 'rollout/reward') ?? null,
      };
  }
  return found;
}
