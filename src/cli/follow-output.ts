// Following a run to its end on the command line: what `--launch --follow` and `awrl-tui follow`
// print (progress lines, or the events as JSON Lines) with alerts, the connection and follow problems
// riding along, what Ctrl-C says, and the exit code the run's end maps to. A renderer of src/runs'
// RunWatch, as the cockpit's session is: every decision (what fired, when the connection was lost,
// when the run ended) is the watch's; this file only prints it, in the order it happened.
import { JsonSink, writeEventJson, type TrainerEvent } from '../trainer-log/index.js';
import type { Target } from '../runs/index.js';
import { StepProgress } from '../watch/follow-to-end.js';
import { createRunWatch } from '../watch/create-run-watch.js';
import type { RunWatchFacts } from '../watch/run-watch.js';
import { FollowGpus } from './follow-gpus.js';
import type { WatchOutcome, WatchOutput } from '../watch/watch-output.js';
import type { RunSummary } from '../runs/list.js';
import { alertClearedJsonLine, alertClearedLine, alertJsonLine, alertLine } from '../watch/follow-alerts.js';
import type { Transport } from '../remote/transport.js';
import { CliError, EXIT } from './errors.js';
import { writeStdoutSync } from './stdio.js';
import {
  followProblemClearedJsonLine,
  followProblemJsonLine,
  followProblemLine,
  followReadingAgainLine,
} from './follow-problem-lines.js';
import {
  connectionJsonLine,
  connectionLine,
  logResetJsonLine,
  logResetLine,
  stateJsonLine,
} from './follow-watch-lines.js';
import { notifyFromWatch, type Channel, type NotifyFailure } from '../notify/index.js';
import { watchSentinel } from '../sentinel/sentinel-watch.js';
import { OutsideAlert } from '../watch/outside-alerts.js';
import { sentinelPeriodMs } from './launch-sentinel.js';
import { sentinelDiskLines, sentinelFailedLines, sentinelViewLines } from './follow-sentinel-lines.js';
import { followDigest } from './follow-digest.js';

export interface FollowPrintOptions {
  transport: Transport;
  target: Target;
  runId: string;
  logPath: string;
  /** JSON Lines on stdout: a first `{"type":"run"}` line, the events, `alert`, `connection`,
   *  `follow-problem` lines, and a last `{"type":"state"}` line; informational lines go to stderr. */
  json: boolean;
  /** What the rules take from the run's config (the staleness budget, the checkpoint interval;
   *  each unknown when absent), or their promise: the follower starts meanwhile, and its records
   *  wait for them (RunWatch). */
  facts: RunWatchFacts | Promise<RunWatchFacts>;
  reconnectTimeoutS: number;
  /** The target flags as the user typed them, to repeat in advice. */
  where: string;
  /** The state poll's pace (tests), default 2 s. */
  statePollMs?: number;
  /** Lines went to stdout through process.stdout before (`--launch --follow`'s own): they may still
   *  be queued there, so ours follow them through it while it holds any. */
  stdoutShared?: boolean;
  /** Where the stdout lines go instead of fd 1 (a test, an embedding): called with the bytes of
   *  whole lines, valid only during the call. */
  writeOut?: (bytes: Uint8Array) => void;
  /** A multi-node run's GPU rounds (the idle-node alert): their pace (tests), default 15 s; and how
   *  long a node may stay idle while the others work (default 2 min). */
  gpuPollMs?: number;
  idleNodeMs?: number;
  /** Where alerts, the run's end and blindness are sent (src/notify); `terminal`: the person's
   *  terminal too, when stderr is one; `announceEnd`: the run was launched here (its end is news
   *  even if it was never seen running). */
  notify?: { channels: readonly Channel[]; terminal: boolean; announceEnd?: boolean };
  /** The human lines through the run's sentinel watch snapshot or digest where it has one
   *  (follow-digest.ts). */
  digest?: boolean;
}

/** How long the command's end waits for its last messages (the run's end) to go out. */
const NOTIFY_FINISH_MS = 15_000;

// A catch-up delivers thousands of records at once: their lines go out as one write at the end
// of the delivery (a microtask: before anything awaited runs, so before the command's end), and a
// line on stderr first hands over the ones queued before it.
// They are gathered as UTF-8 bytes, line by line: joining the strings instead made one string of
// the whole delivery, two bytes a character as soon as one line held a non-Latin-1 character, and
// encoding it again took a sixth of `follow --json`'s CPU (test/bench/stream.bench.mjs).
const queued = new JsonSink();
let flushing = false;
let stdoutShared = false;
let writeOut: ((bytes: Uint8Array) => void) | null = null;
// Written straight to fd 1, as `parse --json` writes: through process.stdout (which also makes a
// pipe non-blocking), a busy catch-up queued a quarter of a GB of lines here (1.1 GB log) and
// copied them once more. While the stream holds lines written before ours, it carries ours too.
const flushOut = (): void => {
  flushing = false;
  if (queued.len === 0) return;
  if (writeOut) writeOut(queued.take());
  else if (!stdoutShared || process.stdout.writableLength === 0) writeStdoutSync(queued.take());
  else process.stdout.write(Buffer.from(queued.take())); // a copy: the sink's buffer is reused
};
const willFlush = (): void => {
  if (flushing) return;
  flushing = true;
  queueMicrotask(flushOut);
};
const out = (s: string) => {
  willFlush();
  queued.line(s);
};
/** An event's JSON line (a step's written from its printed bytes, no string made). */
const outEvent = (e: TrainerEvent) => {
  willFlush();
  writeEventJson(queued, e);
};
const err = (s: string) => {
  flushOut();
  process.stderr.write(`${s}\n`);
};

/** Follows the run's log from its first byte (or the sentinel's snapshot: `digest`) to the run's
 *  end; returns the exit code. */
export async function followAndPrint(o: FollowPrintOptions): Promise<number> {
  const { json, runId, target, where } = o;
  stdoutShared = o.stdoutShared ?? false;
  writeOut = o.writeOut ?? null;
  const info = json ? err : out;
  if (json) out(JSON.stringify({ type: 'run', runId, target: target.name }));
  const channels = o.notify?.channels ?? [];
  // The sentinel's silence, an alert of this watch with or without channels: whoever follows learns
  // that nothing watches the run once they stop.
  const sentinelAlert = new OutsideAlert();
  const steps = new StepProgress();
  // Through the sentinel's watch snapshot: no line for the history before it (its standing alerts
  // are told), the steps after it timed from its last one. Called once the watch below runs.
  const restored = () => {
    steps.continueFrom(watch.store.stepTimeFrom);
    const last = watch.store.lastStepEvent;
    const at = last ? ` at step ${last.globalStep}/${last.totalSteps}` : '';
    info(`watch    snapshot: the run's state${at} from its sentinel's watch snapshot: its lines go on from there`);
  };
  const backfill =
    o.digest && !json ? await followDigest(o.transport, o.logPath, (t) => info(`watch    ${t}`), restored) : undefined;
  const watch = createRunWatch({
    transport: o.transport,
    target,
    runId,
    logPath: o.logPath,
    whenEnded: 'stop',
    outsideAlerts: [sentinelAlert],
    // Lines and alerts only: no chart reads the store's other series.
    storeSeries: 'rules',
    ...(backfill ? { backfill } : {}),
    facts: o.facts instanceof Promise ? o.facts.catch(() => ({})) : o.facts,
    ...(o.statePollMs !== undefined ? { statePollMs: o.statePollMs } : {}),
    ...(o.idleNodeMs !== undefined ? { idleNodeMs: o.idleNodeMs } : {}),
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
  const print = printer(o, info, steps);
  // While the run's sentinel (src/sentinel) runs and beats, it is the one sender: this watch keeps
  // quiet, and says the sentinel's delivery failures and its silence as its own.
  // Who sends and what the sentinel could not send matter only to a watch with channels.
  const sentinel = watchSentinel(o.transport, target, runId, {
    intervalMs: sentinelPeriodMs() ?? 15_000,
    alert: sentinelAlert,
    // The run's disk full matters to whoever follows: it may end the run.
    onDisk: (d, prev) => sentinelDiskLines(d, prev).forEach((l) => (l.json ? json && out(l.text) : info(l.text))),
    ...(channels.length
      ? {
          onView: (v, prev) => sentinelViewLines(v, prev).forEach((l) => (l.json ? json && out(l.text) : info(l.text))),
          onFailure: (f) => sentinelFailedLines(f, json).forEach((l) => (l.json ? out(l.text) : err(l.text))),
        }
      : {}),
  });
  const notifier = notifyFromWatch(watch, {
    runId,
    target: target.name,
    channels,
    quiet: (e) => sentinel.quiets(e),
    terminal:
      o.notify?.terminal && process.stderr.isTTY ? { write: (s) => process.stderr.write(s), env: process.env } : null,
    ...(o.notify?.announceEnd ? { announceEnd: true } : {}),
    onFailure: (f) => notifyFailed(f, json),
  });
  // A multi-node run's GPUs, polled for the watch (its idle-node alert), as the cockpit's panel does.
  const gpus = new FollowGpus({ target, transport: o.transport }, watch, o.gpuPollMs);
  const outcome = await new Promise<WatchOutcome>((resolve) => {
    watch.on((w) => {
      if (w.type === 'state') {
        gpus.update(w.summary);
      }
      if (w.type === 'end') {
        gpus.stop();
      }
      print(w);
      if (w.type === 'end') resolve(w.outcome);
    });
    watch.start();
  });
  // Following is over: a later signal is no longer about it (an in-process caller goes on).
  process.off('SIGINT', leave);
  process.off('SIGTERM', leave);
  // The run's end (and what was queued before it) goes out before the command ends.
  await notifier.finish(NOTIFY_FINISH_MS);
  sentinel.close();
  if (outcome.kind === 'disconnected') {
    // Thrown, not printed: main.ts prints the line, and with --json the error's JSON line follows the events.
    throw new CliError(
      `lost the connection to ${target.name} for more than ${o.reconnectTimeoutS} s (${outcome.reason}); the run goes on: awrl-tui follow ${runId} ${where}`,
      EXIT.disconnected,
      {
        code: 'disconnected',
        hint: `follow it again once the host answers: awrl-tui follow ${runId} ${where}`,
      },
    );
  }
  if (outcome.state === 'finished') return EXIT.ok;
  if (outcome.state === 'stopped') return EXIT.stopped;
  return EXIT.failed;
}

/** A message that could not be sent is said (never silent), by the channel's redacted name. */
function notifyFailed(f: NotifyFailure, json: boolean): void {
  err(`notify   ${f.event} not sent to ${f.channel}: ${f.reason}`);
  if (json) out(JSON.stringify({ type: 'notify-failed', channel: f.channel, event: f.event, reason: f.reason }));
}

/** The lines of one watch output (stateful: the previous step, the last state seen). */
function printer(o: FollowPrintOptions, info: (s: string) => void, steps: StepProgress): (w: WatchOutput) => void {
  const { json, target } = o;
  let last: RunSummary | null = null;
  return (w) => {
    switch (w.type) {
      case 'record': {
        const e = w.record;
        if (e.type === 'save') return; // not an event of the contract: the health rules'
        const line = steps.line(e);
        if (json) outEvent(e);
        else if (line !== null) out(line);
        return;
      }
      case 'alert':
        return out(json ? alertJsonLine(w.alert) : alertLine(w.alert));
      case 'alert-cleared':
        return out(json ? alertClearedJsonLine(w.alert, w.endedWithRun) : alertClearedLine(w.alert, w.endedWithRun));
      case 'connection':
        info(connectionLine(w, target.name));
        if (json) out(connectionJsonLine(w, target.name));
        return;
      case 'state':
        last = w.summary;
        return info(`state    ${w.summary.state} (${w.summary.detail})`);
      case 'reset':
        // A log truncated or replaced under us: what follows comes from the new file's first byte.
        steps.reset();
        if (json) out(logResetJsonLine(w.reason, o.logPath));
        return info(logResetLine(w.reason, o.logPath));
      case 'problem':
        if (w.problem) {
          info(followProblemLine(w.problem, { kind: 'retrying' }));
          if (json) out(followProblemJsonLine(w.problem, { kind: 'retrying' }));
        } else {
          info(followReadingAgainLine(o.logPath));
          if (json) out(followProblemClearedJsonLine({ target: target.name, path: o.logPath }));
        }
        return;
      case 'note':
        return info(`watch    ${w.text}`);
      case 'ray':
        if (!w.update) return; // the trainer's first record follows: its lines say the rest
        info(`ray      ${w.update.text}`);
        if (json) out(JSON.stringify({ type: 'ray-bringup', ...w.update }));
        return;
      case 'settled':
        // The run ended while its log could not be read: following is over, not "still retrying";
        // say how much of the log was never read (its events are missing from what was printed).
        if (w.problem) {
          const now = { kind: 'gave-up', unreadBytes: w.unreadBytes } as const;
          info(followProblemLine(w.problem, now));
          if (json) out(followProblemJsonLine(w.problem, now));
        }
        if (w.lastLines.length)
          info(`last lines of its log (${o.logPath}):\n${w.lastLines.map((l) => `  ${l}`).join('\n')}`);
        if (json && last) out(stateJsonLine(last, w.lastLines));
        return;
      case 'phase':
      case 'lines':
      case 'end':
        return;
    }
  };
}
