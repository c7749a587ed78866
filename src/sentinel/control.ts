// Starting and stopping a run's sentinel from the cockpit's side (the launch, `awrl-tui sentinel`).
import type { Transport } from '../remote/transport.js';
import { remoteScript } from '../remote/quote.js';
import { parseChannels } from '../notify/index.js';
import { parseMarkedLines } from '../runs/remote-scripts.js';
import type { RunRecord } from '../runs/run-record.js';
import { parseSentinelBeat, SENTINEL_PERIOD_MS } from '../runs/sentinel-status.js';
import type { Target } from '../runs/targets.js';
import { ensureRuntime, SentinelError, type SentinelRuntime } from './runtime.js';
import { sentinelInputText } from './sentinel-input.js';
import { START_SENTINEL_SCRIPT, STOP_SENTINEL_SCRIPT } from './sentinel-scripts.js';

export { SentinelError } from './runtime.js';

export interface StartSentinelOptions {
  /** Notification URLs: they travel on the start script's stdin only. */
  notify: readonly string[];
  /** Heartbeat period (default 15 s; tests shorten it). */
  periodMs?: number;
  /** How long to wait for its first heartbeat (default 20 s). */
  waitS?: number;
}

export interface StartedSentinel {
  pid: number;
  runtime: SentinelRuntime;
}

/** Starts the run's sentinel on the target; a SentinelError says why it could not (another one
 *  already watches the run, no runtime, it died at once with its log's last lines). */
export async function startSentinel(
  transport: Transport,
  target: Target,
  record: RunRecord,
  opts: StartSentinelOptions,
): Promise<StartedSentinel> {
  const { errors } = parseChannels(opts.notify);
  if (errors.length) throw new SentinelError(`the sentinel was not started: notification channel ${errors[0]}`);
  const runtime = await ensureRuntime(transport, target);
  const input = sentinelInputText(record.runId, target, opts.notify, opts.periodMs ?? SENTINEL_PERIOD_MS);
  const res = await transport.exec(
    remoteScript(
      START_SENTINEL_SCRIPT,
      [record.runDir, record.runId, runtime.node, runtime.main, String(opts.waitS ?? 20)],
      'awrl-sentinel-start',
    ),
    { stdin: input, ownSignals: true },
  );
  const lines = parseMarkedLines(res.stdout.toString('utf8'));
  const field = (k: string) => lines.filter(([key]) => key === k).map(([, f]) => f);
  const started = Number(field('started')[0]?.[0]);
  if (res.code === 0 && Number.isInteger(started) && started > 0) return { pid: started, runtime };
  if (res.code === 5) {
    const other = parseSentinelBeat(field('busy')[0]?.slice(0).join('\t') ?? '');
    throw new SentinelError(
      `a sentinel already watches ${record.runId}${other ? ` (pid ${other.pid}, started ${other.startedAt})` : ''}`,
    );
  }
  const log = field('log').map((f) => f.join('\t'));
  const why = log.length ? `; its log ends: ${log.join(' | ')}` : '';
  const err = res.stderr.toString('utf8').trim().split('\n').pop();
  throw new SentinelError(
    `the sentinel of ${record.runId} did not start on ${target.name}: ${err || `exit ${res.code}`}${why}`,
  );
}

/** Stops the run's sentinel (SIGTERM, then SIGKILL after `graceS`): 'stopped', 'killed' or 'none'. */
export async function stopSentinel(
  transport: Transport,
  record: RunRecord,
  graceS = 10,
): Promise<'stopped' | 'killed' | 'none'> {
  const res = await transport.exec(
    remoteScript(STOP_SENTINEL_SCRIPT, [record.runDir, record.runId, String(graceS)], 'awrl-sentinel-stop'),
  );
  if (res.code !== 0)
    throw new SentinelError(`stopping the sentinel failed: ${res.stderr.toString('utf8').trim() || res.code}`);
  const out = res.stdout.toString('utf8');
  return /^@@kill\t/m.test(out) ? 'killed' : /^@@term\t/m.test(out) ? 'stopped' : 'none';
}

/** What the one digest of an ended run did (`sentinel-run --digest-once`'s line). */
export interface DigestedRun {
  digest: string;
  logBytes: number;
  updated: boolean;
  offset?: number;
  gzBytes?: number;
  filtered?: number;
  rebuilt?: string | null;
}

/** An ended run: nothing to watch, but its digest is written once (the next attach reads it instead
 *  of the whole log), by the sentinel's runtime on the target, in the foreground; then it is over. */
export async function digestEndedRun(transport: Transport, target: Target, record: RunRecord): Promise<DigestedRun> {
  const runtime = await ensureRuntime(transport, target);
  const res = await transport.exec([
    runtime.node,
    '--v8-pool-size=1',
    runtime.main,
    'sentinel-run',
    record.runId,
    record.runDir,
    '--digest-once',
  ]);
  const line = res.stdout.toString('utf8').trim().split('\n').pop() ?? '';
  let out: DigestedRun | null = null;
  try {
    out = JSON.parse(line) as DigestedRun;
  } catch {
    out = null;
  }
  if (res.code !== 0 || !out || typeof out.digest !== 'string')
    throw new SentinelError(
      `the digest of ${record.runId} was not written on ${target.name}: ${res.stderr.toString('utf8').trim().split('\n').pop() || `exit ${res.code}`}`,
    );
  return out;
}
