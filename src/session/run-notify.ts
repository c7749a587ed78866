// The open run's notifications in the cockpit: the channels the command line and AWRL_NOTIFY gave,
// plus the target's own `notify:` (targets.yaml), subscribed to the feed's watch (src/notify, the
// same subscriber as `follow`'s). A message that could not be sent is said on the status line.
import { basesFromEnv, notifyFromWatch, parseChannels, type Channel, type Notifier } from '../notify/index.js';
import type { TerminalOut } from '../notify/terminal-notify.js';
import type { RunWatch } from '../watch/run-watch.js';
import type { Target } from '../runs/index.js';
import type { Transport } from '../remote/transport.js';
import { sentinelText } from '../runs/sentinel-status.js';
import { diskChangeText } from '../runs/sentinel-disk.js';
import { watchSentinel } from '../sentinel/sentinel-watch.js';

export interface CockpitNotify {
  /** From `--notify` and AWRL_NOTIFY (checked by the command before the cockpit opened). */
  channels: readonly Channel[];
  /** The person's terminal (null: off, or not a terminal). */
  terminal: TerminalOut | null;
  env?: Record<string, string | undefined>;
}

export function notifyOpenRun(
  feed: { watch: RunWatch; runId: string; transport?: Transport },
  target: Target,
  o: CockpitNotify | undefined,
  say: (notice: string) => void,
): Notifier | null {
  if (!o) return null;
  const own = parseChannels(target.notify ?? [], basesFromEnv(o.env ?? process.env));
  for (const e of own.errors) say(`notify: ${target.name}'s notify: ${e}`);
  const where = (c: Channel) => ('url' in c ? c.url : c.program);
  const seen = new Set(o.channels.map(where));
  const channels = [...o.channels, ...own.channels.filter((c) => !seen.has(where(c)))];
  // While the run's sentinel (src/sentinel) runs, it is the one sender: the cockpit keeps its
  // channels quiet, and says the sentinel's silence and delivery failures on the status line.
  const sentinel =
    channels.length && feed.transport
      ? watchSentinel(feed.transport, target, feed.runId, {
          onView: (v, prev) => {
            if (prev || v.state === 'running')
              say(`${sentinelText(v)}: ${v.state === 'running' ? 'it sends' : 'the cockpit sends'} the notifications`);
          },
          onFailure: (f) => say(`notify: ${f.event} not sent by the run's sentinel to ${f.channel}: ${f.error}`),
          // Its full disk: its own alert, which it sends; said here as follow says it.
          onDisk: (d, prev) => say(diskChangeText(d, prev)),
        })
      : null;
  const n = notifyFromWatch(feed.watch, {
    runId: feed.runId,
    target: target.name,
    channels,
    terminal: o.terminal,
    quiet: (e) => sentinel?.quiets(e) ?? false,
    onFailure: (f) => say(`notify: ${f.event} not sent to ${f.channel}: ${f.reason}`),
  });
  return {
    get sent() {
      return n.sent;
    },
    finish: (ms) => {
      sentinel?.close();
      return n.finish(ms);
    },
    close: () => {
      sentinel?.close();
      n.close();
    },
  };
}
