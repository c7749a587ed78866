// Following a run to its end on the command line: what `--launch --follow` and `awrl-tui follow`
// print (progress lines, or the events as JSON Lines) with health and metric alerts riding along,
// what Ctrl-C says, and the exit code the run's end maps to.
import { eventToJsonLine, type StepEvent } from '../trainer-log/index.js';
import type { Target } from '../runs/index.js';
import { followToEnd, progressLine } from '../runs/follow-to-end.js';
import { isActive, isTerminal } from '../runs/run-state.js';
import { NodeFailureWatch } from '../runs/node-facts.js';
import { RayBringUpLines } from '../runs/ray-bringup-log.js';
import { FollowAlerts, alertClearedJsonLine, alertClearedLine, alertJsonLine, alertLine } from '../runs/follow-alerts.js';
import type { FollowProblem, Transport } from '../remote/transport.js';
import type { ConfigEvaluation } from '../config/index.js';
import type { Alert } from '../metrics/index.js';
import { CliError, EXIT } from './errors.js';
import { countBytesRead } from './follow-bytes.js';
import { followProblemClearedJsonLine, followProblemJsonLine, followProblemLine, followReadingAgainLine } from './follow-problem-lines.js';

export interface FollowPrintOptions {
  transport: Transport;
  target: Target;
  runId: string;
  logPath: string;
  /** JSON Lines on stdout (events, `{"type":"alert"}`, `{"type":"follow-problem"}`); informational
   *  lines go to stderr. */
  json: boolean;
  /** The run's config, for the staleness budget and the checkpoint interval (null: unknown). */
  evaluation: ConfigEvaluation | null;
  reconnectTimeoutS: number;
  /** The target flags as the user typed them, to repeat in advice. */
  where: string;
}

const out = (s: string) => process.stdout.write(`${s}\n`);
const err = (s: string) => process.stderr.write(`${s}\n`);

/** Follows the run's log from its first byte to the run's end; returns the exit code. */
export async function followAndPrint(o: FollowPrintOptions): Promise<number> {
  const { json, runId, target, where } = o;
  const info = json ? err : out;
  let prev: StepEvent | null = null;
  // Health and metric alerts ride along as extra lines (when one fires, and when it clears), never
  // changing the event lines.
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const resolved = o.evaluation?.resolved as Record<string, any> | undefined;
  const maxHead = num(resolved?.rollout?.max_head_offpolicyness);
  const freqSecs = num(resolved?.recover?.freq_secs);
  const alerts = new FollowAlerts({ ...(maxHead !== undefined ? { maxHeadOffpolicyness: maxHead } : {}), ...(freqSecs !== undefined ? { recoverFreqSecs: freqSecs } : {}) });
  const report = (fired: Alert[]) => {
    const cleared = alerts.takeCleared(fired);
    for (const a of cleared) if (!fired.includes(a)) out(json ? alertClearedJsonLine(a) : alertClearedLine(a));
    for (const a of fired) out(json ? alertJsonLine(a) : alertLine(a));
    // Fired and over with the same record (a hang found at the record that ends it): both said.
    for (const a of cleared) if (fired.includes(a)) out(json ? alertClearedJsonLine(a) : alertClearedLine(a));
  };
  // A Slurm node failure, named with Slurm's verdict (node-facts.ts), once per failure.
  const nodes = new NodeFailureWatch(o.transport, target, (a) => out(json ? alertJsonLine(a) : alertLine(a)));
  // A stall brings no events: ask the time-based rules on the wall clock too.
  const ticker = setInterval(() => report(alerts.tick()), 30_000);
  ticker.unref();
  // A run that hung before we attached: its log's silence (measured on the target's own clock)
  // counts once reading stands exactly at the size measured, so the hang is reported as soon as the
  // backlog is read, not 3 median steps after attaching; and a pause inside the backlog is never
  // taken for the log's end (we know how far we have read: countBytesRead).
  const read = countBytesRead(o.transport);
  const silence = alerts.countSilence({ transport: o.transport, logPath: o.logPath, onFired: report });
  read.onRead((offset) => silence.readTo(offset));
  // The batch script's Ray bring-up (`starting Ray: 3/4 nodes joined, n3 failed: …`), as it happens.
  const ray = new RayBringUpLines();
  read.onBytes((b) => {
    if (b === null) return ray.reset();
    for (const u of ray.push(b)) {
      info(`ray      ${u.text}`);
      if (json) out(JSON.stringify({ type: 'ray-bringup', ...u }));
    }
  });
  // Ctrl-C ends the following, never the run (it is detached, or a Slurm job): say so, and how to
  // get back to it, instead of dying silently with the run's fate unclear.
  const leave = (signal: NodeJS.Signals) => {
    err(
      `awrl-tui: stopped following ${runId}; the run goes on on ${target.name}. ` +
        `Follow it again: awrl-tui follow ${runId} ${where}; its state: awrl-tui runs ${where}; ` +
        `its dashboard: awrl-tui watch ${runId} ${where}; to stop it: awrl-tui stop ${runId} ${where}`,
    );
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', leave);
  process.once('SIGTERM', leave);
  // The log cannot be read although the connection works (permissions, a follower that cannot
  // start): said once per problem (people on stderr with --json; scripts on stdout), and said
  // when it reads again, before what it reads, rather than waiting in silence.
  let standing: FollowProblem | null = null;
  const onProblem = (p: FollowProblem | null) => {
    if (p) {
      if (standing?.text === p.text) return;
      standing = p;
      info(followProblemLine(p, { kind: 'retrying' }));
      if (json) out(followProblemJsonLine(p, { kind: 'retrying' }));
    } else if (standing) {
      const was = standing;
      standing = null;
      info(followReadingAgainLine(o.logPath));
      if (json) out(followProblemClearedJsonLine(was));
    }
  };
  const outcome = await followToEnd(read.transport, target, runId, o.logPath, {
    onEvent: (e) => {
      if (json) out(eventToJsonLine(e));
      else if (e.type === 'step') {
        out(progressLine(e, prev));
        prev = e;
      } else if (e.type === 'error') out(`error: ${e.message}`);
      else if (e.type === 'resume') out(`resumed at step ${e.resumeStep}`);
      report(alerts.push(e));
    },
    // The Slurm wall-time rule: the trainer's checkpoint saves date the last recover checkpoint,
    // and the job's end (squeue, every minute: an admin may move it) says when the allocation ends.
    onSave: (s) => report(alerts.push(s)),
    onSlurmEnd: (end) => report(alerts.setSlurmEndTime(end)),
    onState: (s) => {
      // An ended run has no hang to report (a run killed without an error record would otherwise
      // get a stall line before its state says it failed).
      // Pending (queued, or requeued after a node failure) has no step coming either.
      alerts.setEnded(isTerminal(s.state) || s.state === 'pending');
      info(`state    ${s.state} (${s.detail})`);
      nodes.update(s.record, isActive(s.state));
    },
    // A log truncated or replaced under us: what follows comes from the new file's first byte.
    onReset: (reason) => info(`log      ${reason === 'appeared' ? 'appeared' : `was ${reason}`}: reading it from its first byte (steps it repeats are shown again)`),
    onProblem,
  }).finally(() => {
    nodes.stop();
    clearInterval(ticker);
    silence.stop();
  });
  if (outcome.kind === 'disconnected') {
    // Thrown, not printed: main.ts prints the line, and with --json the error's JSON line follows the events.
    throw new CliError(`lost the connection to ${target.name} for more than ${o.reconnectTimeoutS} s (${outcome.reason}); the run goes on: awrl-tui follow ${runId} ${where}`, EXIT.disconnected, {
      code: 'disconnected',
      hint: `follow it again once the host answers: awrl-tui follow ${runId} ${where}`,
    });
  }
  // The run ended while its log could not be read: following is over, not "still retrying"; say
  // how much of the log was never read (its events are missing from what was printed).
  const unresolved = standing as FollowProblem | null;
  if (unresolved) {
    const size = (await o.transport.stat(o.logPath).catch(() => null))?.size;
    const now = { kind: 'gave-up', unreadBytes: size === undefined ? null : Math.max(0, size - read.offset) } as const;
    info(followProblemLine(unresolved, now));
    if (json) out(followProblemJsonLine(unresolved, now));
  }
  if (outcome.state === 'finished') return EXIT.ok;
  if (outcome.state === 'stopped') return EXIT.stopped;
  return EXIT.failed;
}
