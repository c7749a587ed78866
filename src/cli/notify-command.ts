// `awrl-tui notify test [--notify URL]… [--target T] [--no-terminal-notify]`: a test message
// through every channel the watch would use (the flags, the target's `notify:`, AWRL_NOTIFY),
// one line per channel with the channel redacted; exit 1 if any failed. At a terminal, its
// desktop notification too (whether it shows is the terminal's business: said as written).
import { parseCli } from '../runs/cli-args.js';
import { readProfiles } from '../runs/cli-target.js';
import { deliver } from '../notify/deliver.js';
import { TerminalNotifier } from '../notify/terminal-notify.js';
import type { NotifyEvent } from '../notify/notify-event.js';
import { cliNotify, NOTIFY_LIST, NO_TERMINAL_NOTIFY } from './notify-words.js';
import { CliError, EXIT } from './errors.js';
import { hostname } from 'node:os';

const USAGE = 'usage: awrl-tui notify test [--notify URL]... [--target T] [--no-terminal-notify]';

export async function run(args: string[]): Promise<number> {
  let p;
  try {
    p = parseCli(args, { lists: [NOTIFY_LIST], switches: [NO_TERMINAL_NOTIFY] });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n${USAGE}`, EXIT.usage);
  }
  const [sub, ...extra] = p.positional;
  if (sub !== 'test') throw new CliError(`notify needs 'test'\n${USAGE}`, EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'\n${USAGE}`, EXIT.usage);
  let profile: string[] | undefined;
  if (p.flags.target) {
    try {
      profile = readProfiles()[p.flags.target]?.notify;
    } catch (e) {
      throw new CliError((e as Error).message, EXIT.usage);
    }
  }
  const { channels, terminal } = cliNotify(p, profile);
  const atTerminal = terminal && process.stdout.isTTY;
  if (channels.length === 0 && !atTerminal)
    throw new CliError(
      'no notification channel: give --notify URL, set AWRL_NOTIFY, or notify: in targets.yaml',
      EXIT.usage,
      {
        hint: 'e.g. awrl-tui notify test --notify ntfy://ntfy.sh/your-topic',
      },
    );
  const event: NotifyEvent = {
    event: 'test',
    runId: 'test',
    target: p.flags.target ?? hostname(),
    time: new Date().toISOString(),
    title: 'test message',
    // The event's target already names this host when no --target is given: say it once.
    message: `awrl-tui can reach you here${p.flags.target ? ` (sent from ${hostname()})` : ''}`,
  };
  if (atTerminal) {
    new TerminalNotifier({ write: (s) => void process.stdout.write(s), env: process.env }).event(event);
    process.stdout.write('written  terminal (a desktop notification if this terminal shows them)\n');
  }
  // All at once, each with fewer retries than a watch's: a person is waiting for the answer.
  const results = await Promise.all(channels.map((c) => deliver(c, event, { retries: 2 })));
  let failed = 0;
  results.forEach((r, i) => {
    const name = channels[i].redacted;
    if (r.ok) process.stdout.write(`ok       ${name}\n`);
    else {
      failed++;
      process.stdout.write(`failed   ${name}: ${r.reason}\n`);
    }
  });
  return failed ? EXIT.failed : EXIT.ok;
}
