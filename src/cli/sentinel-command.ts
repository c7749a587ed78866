// `awrl-tui sentinel start|stop|status RUN --target T`: a run's sentinel (src/sentinel), the watch
// that runs on the target next to the run and sends its notifications with no cockpit attached.
import { readRecord } from '../runs/launch.js';
import { listRuns, runsRoot } from '../runs/list.js';
import { isActive } from '../runs/run-state.js';
import { NO_SENTINEL, sentinelText, type SentinelView } from '../runs/sentinel-status.js';
import { parseCli } from '../runs/cli-target.js';
import type { Transport } from '../remote/transport.js';
import type { Target } from '../runs/targets.js';
import { digestEndedRun, SentinelError, startSentinel, stopSentinel } from '../sentinel/control.js';
import { connectOrExit } from './connect-target.js';
import { CliError, EXIT } from './errors.js';
import { withJsonErrors } from './json-errors.js';
import { cliTarget } from './run-errors.js';
import { noRunError } from './no-run.js';
import { targetWords } from './cli-words.js';
import { sentinelPeriodMs } from './launch-sentinel.js';
import { cliNotify, NOTIFY_LIST } from './notify-words.js';
import { notifyUrls } from '../notify/index.js';

const USAGE = 'usage: awrl-tui sentinel start|stop|status RUN --target T [--notify URL]… [--json]';

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => sentinel(args));

async function sentinel(args: string[]): Promise<number> {
  let p;
  try {
    p = parseCli(args, { lists: [NOTIFY_LIST], switches: ['--json', '--accept-new-host-key'] });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n${USAGE}`, EXIT.usage);
  }
  const [verb, runId, ...extra] = p.positional;
  if (!verb || !['start', 'stop', 'status'].includes(verb))
    throw new CliError(`sentinel needs start, stop or status\n${USAGE}`, EXIT.usage);
  if (!runId) throw new CliError(`sentinel ${verb} needs a RUN id\n${USAGE}`, EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'\n${USAGE}`, EXIT.usage);
  const json = p.switches.has('--json');
  const target = cliTarget(p.flags);
  cliNotify(p, target.notify); // a URL that is not a channel: exit 2 before connecting
  const urls = notifyUrls({ flags: p.lists[NOTIFY_LIST], profile: target.notify, env: process.env });
  const transport = await connectOrExit(target, { acceptNewHostKey: p.switches.has('--accept-new-host-key') });
  try {
    const record = await readRecord(transport, `${runsRoot(target)}/${runId}`).catch(() => null);
    if (!record) throw await noRunError(transport, target, runId, `awrl-tui runs ${targetWords(args)}`);
    const say = (human: string, obj: object) =>
      process.stdout.write(json ? `${JSON.stringify({ runId, ...obj })}\n` : `${human}\n`);
    if (verb === 'status') {
      const v = await viewOf(transport, target, runId);
      say(statusLines(runId, v), { sentinel: v });
      return EXIT.ok;
    }
    if (verb === 'stop') {
      const how = await stopSentinel(transport, record).catch(failed);
      const text = {
        stopped: `stopped the sentinel of ${runId} on ${target.name}`,
        killed: `the sentinel of ${runId} on ${target.name} did not stop on SIGTERM: killed`,
        none: `no sentinel runs for ${runId} on ${target.name}: nothing to stop`,
      }[how];
      say(text, { stopped: how });
      return EXIT.ok;
    }
    const [listed] = await listRuns(transport, target, { only: runId, tailBytes: 0 });
    const before = listed?.sentinel ?? NO_SENTINEL;
    if (listed && !isActive(listed.state)) {
      // Nothing to watch: its log is digested once (the next attach reads the digest), then it is over.
      const d = await digestEndedRun(transport, target, record).catch(failed);
      const mib = (n = 0) => `${(n / 1048576).toFixed(1)} MiB`;
      const did = d.updated
        ? `digested ${mib(d.offset)} of its log into ${d.digest} (${mib(d.gzBytes)})`
        : `its digest ${d.digest} already covers its log (${mib(d.logBytes)})`;
      say(`${runId} has already ended (${listed.state}): no sentinel to watch it; ${did}; done`, {
        ended: listed.state,
        ...d,
      });
      return EXIT.ok;
    }
    if (before.state === 'running')
      throw new CliError(`a sentinel already watches ${runId} (pid ${before.pid}): ${sentinelText(before)}`, 2);
    const period = sentinelPeriodMs();
    const s = await startSentinel(transport, target, record, {
      notify: urls,
      ...(period ? { periodMs: period } : {}),
    }).catch(failed);
    const installed = s.runtime.installed.length ? ` (installed ${s.runtime.installed.join(', ')})` : '';
    say(`sentinel of ${runId} started on ${target.name}: pid ${s.pid}, node ${s.runtime.node}${installed}`, {
      pid: s.pid,
      node: s.runtime.node,
      installed: s.runtime.installed,
    });
    return EXIT.ok;
  } finally {
    await transport.close().catch(() => undefined);
  }
}

async function viewOf(transport: Transport, target: Target, runId: string): Promise<SentinelView> {
  const [r] = await listRuns(transport, target, { only: runId, tailBytes: 0 }).catch((e: Error) => {
    throw new CliError(e.message, EXIT.failed, { code: 'remote-failed' });
  });
  return r?.sentinel ?? NO_SENTINEL;
}

function statusLines(runId: string, v: SentinelView): string {
  const lines = [`${runId}: ${sentinelText(v)}${v.pid ? ` (pid ${v.pid})` : ''}`];
  if (v.notify.length) lines.push(`  notifies ${v.notify.join(', ')}`);
  if (v.sent !== undefined && v.state !== 'none') lines.push(`  sent ${v.sent} notification(s)`);
  for (const f of v.failures ?? []) lines.push(`  delivery failed at ${f.at} to ${f.channel}: ${f.error}`);
  return lines.join('\n');
}

const failed = (e: unknown): never => {
  if (e instanceof SentinelError) throw new CliError(e.message, EXIT.failed, { code: 'remote-failed' });
  throw e;
};
