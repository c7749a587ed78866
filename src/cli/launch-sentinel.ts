// `--launch … --notify URL`: the run's sentinel started on the target right after the run (direct
// and Slurm), so its notifications go on once this command ends. A sentinel that cannot start
// never stops the launch: it is said, with who is (not) watching the run now.
import type { Transport } from '../remote/transport.js';
import type { RunRecord } from '../runs/run-record.js';
import type { Target } from '../runs/targets.js';
import { SentinelError, startSentinel } from '../sentinel/control.js';
import { redactUrl } from '../notify/index.js';

export type LaunchSentinel = { pid: number; notify: string[] } | { error: string } | null;

export async function sentinelForLaunch(
  transport: Transport,
  target: Target,
  record: RunRecord,
  o: { urls: string[]; off: boolean },
): Promise<LaunchSentinel> {
  if (o.off || o.urls.length === 0) return null;
  const period = sentinelPeriodMs();
  try {
    const s = await startSentinel(transport, target, record, {
      notify: o.urls,
      ...(period ? { periodMs: period } : {}),
    });
    return { pid: s.pid, notify: o.urls.map(redactUrl) };
  } catch (e) {
    if (e instanceof SentinelError) return { error: e.message };
    return { error: `the sentinel could not be started: ${(e as Error).message}` };
  }
}

/** The launch's lines about its sentinel. */
export function launchSentinelLines(s: LaunchSentinel, runId: string, where: string, follow: boolean): string[] {
  if (!s) return [];
  if ('pid' in s) return [`sentinel ${s.pid} (notifies ${s.notify.join(', ')})`];
  const who = follow ? 'only while this command follows it' : 'nobody watches it once this command ends';
  return [
    `sentinel NOT started: ${s.error}`,
    `the run goes on, but its notifications are sent ${who}; try again: awrl-tui sentinel start ${runId} ${where}`,
  ];
}

/** A test's shorter heartbeat (AWRL_SENTINEL_PERIOD_MS), else the default. */
export function sentinelPeriodMs(env: Record<string, string | undefined> = process.env): number | undefined {
  const v = Number(env.AWRL_SENTINEL_PERIOD_MS);
  return Number.isInteger(v) && v > 0 ? v : undefined;
}
