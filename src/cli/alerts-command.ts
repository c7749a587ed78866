// `awrl-tui alerts RUN --target T [--json]`: the run's alert history (fired, cleared, how often, when
// first and last, at which steps), derived from its log by the watch's own rules (RunWatch: the
// same reader, the same RunAlerts and AlertHistory as the cockpit's `h` screen and `follow`), so it
// is the same whether or not anyone watched. The log is read to the size it had when asked (a
// running run's history so far), or to its end once the run ended.
import type { Target } from '../runs/targets.js';
import { parseCli } from '../runs/cli-target.js';
import { listRuns } from '../runs/list.js';
import { runLogPath } from '../runs/run-record.js';
import { createRunWatch } from '../watch/create-run-watch.js';
import { isTerminal } from '../runs/run-state.js';
import type { AlertHistoryEntry } from '../health/index.js';
import { alertHistoryRows } from '../ui/screens/alert-history.js';
import { lineText } from '../ui/lines.js';
import { connectOrExit } from './connect-target.js';
import { CliError, EXIT } from './errors.js';
import { targetWords } from './cli-words.js';
import { withJsonErrors } from './json-errors.js';
import { cliTarget } from './run-errors.js';
import { noRunError } from './no-run.js';

const USAGE = 'usage: awrl-tui alerts RUN --target T [--json]';

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => alerts(args));

async function alerts(args: string[]): Promise<number> {
  let p;
  try {
    p = parseCli(args, { switches: ['--json', '--accept-new-host-key'] });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n${USAGE}`, EXIT.usage);
  }
  const [runId, ...extra] = p.positional;
  if (!runId) throw new CliError(`alerts needs a RUN id (see awrl-tui runs --target T)\n${USAGE}`, EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'\n${USAGE}`, EXIT.usage);
  const target: Target = cliTarget(p.flags);
  const transport = await connectOrExit(target, { acceptNewHostKey: p.switches.has('--accept-new-host-key') });
  try {
    // Its state first: an ended run's silence since its end is no hang (the rules are told so).
    const [summary] = await listRuns(transport, target, { only: runId, tailBytes: 0 }).catch(() => []);
    const record = summary?.record;
    if (!record) throw await noRunError(transport, target, runId, `awrl-tui runs ${targetWords(args)}`);
    const logPath = runLogPath(record);
    const { readRunFacts } = await import('../runs/run-facts-eval.js');
    const facts = readRunFacts(transport, record).catch(() => ({}));
    const size = (await transport.stat(logPath).catch(() => null))?.size ?? 0;
    const ended = isTerminal(summary.state);
    const entries = await historyOf({ transport, target, runId, logPath, facts, size, ended });
    if (p.switches.has('--json')) {
      for (const e of entries) process.stdout.write(`${JSON.stringify(entryJson(e))}\n`);
    } else {
      const width = Math.max(60, Math.min(process.stdout.columns ?? 100, 140));
      process.stdout.write(`alerts of ${runId} on ${target.name} (its log: ${size} bytes read)\n`);
      for (const line of alertHistoryRows(entries, width)) process.stdout.write(`${lineText(line)}\n`);
    }
    return EXIT.ok;
  } finally {
    await transport.close().catch(() => undefined);
  }
}

/** The watch reads the log from its first byte to `size` (or the run's end), then its rules look
 *  once more at the clock; its history is the answer. */
function historyOf(o: {
  transport: Awaited<ReturnType<typeof connectOrExit>>;
  target: Target;
  runId: string;
  logPath: string;
  facts: Promise<object>;
  size: number;
  ended: boolean;
}): Promise<readonly AlertHistoryEntry[]> {
  const watch = createRunWatch({
    transport: o.transport,
    target: o.target,
    runId: o.runId,
    logPath: o.logPath,
    whenEnded: 'stop',
    storeSeries: 'rules',
    facts: o.facts,
    // An ended run is judged as ended from its first record (the watch takes the list's answer as
    // the state's first), not from whenever its own state poll answers.
    endedAtOpen: o.ended,
  });
  return new Promise((resolve, reject) => {
    // A running run: its history so far, once the log is read as far as it was when asked (looked
    // at between deliveries: the offset moves after a delivery's records, with nothing told then).
    // An ended run is read to its end (its state known first: its silence since is no hang).
    const read = setInterval(() => {
      const s = watch.summary;
      if (s && !isTerminal(s.state) && watch.phase === 'following' && watch.offset >= o.size) done();
    }, 100);
    let over = false;
    const done = () => {
      if (over) return;
      over = true;
      clearInterval(read);
      watch.tick();
      const entries = watch.alerts.history.entries();
      watch.close();
      resolve(entries);
    };
    watch.on((w) => {
      if (w.type !== 'end') return;
      if (w.outcome.kind === 'disconnected') {
        clearInterval(read);
        reject(new CliError(`lost the connection to ${o.target.name}: ${w.outcome.reason}`, EXIT.disconnected));
      } else done();
    });
    watch.start();
  });
}

function entryJson(e: AlertHistoryEntry): Record<string, unknown> {
  // The history's clock is the log's naive time read as this machine's: said back as the log prints it.
  const iso = (ms: number | null) => {
    if (ms === null) return null;
    const d = new Date(ms);
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
  };
  return {
    type: 'alert-history',
    id: e.alert.id,
    severity: e.alert.severity,
    title: e.alert.title,
    advice: e.alert.advice,
    fired: e.fired,
    active: e.active,
    endedWithRun: e.endedWithRun,
    firstAt: iso(e.firstSeenAt),
    firstStep: e.firstStep,
    lastFiredAt: iso(e.lastFiredAt),
    lastAt: iso(e.lastSeenAt),
    lastStep: e.lastStep,
    clearedAt: iso(e.clearedAt),
  };
}
