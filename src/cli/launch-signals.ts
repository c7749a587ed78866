// SIGINT, SIGTERM and SIGHUP during `--launch` (issue #17 §1). Until the start script is sent,
// nothing exists on the target: the launch ends at once and says `launch cancelled: nothing was
// started on T`. Once it is sent, the start is the target's and finishes there whatever happens
// here; the launcher waits for its answer and says `run RUN started (Ctrl-C again to leave it
// running)`; a second signal ends the launcher and leaves the start to finish on the target.

const CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface LaunchSignals {
  /** The start script is about to be sent (LaunchIo.onStarting). */
  starting(runId: string): void;
  /** The start is done; true when a signal came while it ran (say so, do not follow). */
  started(runId: string): boolean;
  /** Back to the default handling (following has its own). */
  release(): void;
}

export function launchSignals(o: {
  targetName: string;
  where: string;
  json: boolean;
  err: (s: string) => void;
  /** Cancels what runs; may return a cancel on the target to wait for (at most 10 s) before exiting. */
  abort: () => Promise<unknown> | undefined;
}): LaunchSignals {
  let phase: 'checking' | 'starting' | 'done' = 'checking';
  let runId = '';
  let interrupted = false;
  const on = (sig: NodeJS.Signals) => {
    // SIGHUP: the terminal is gone; writing to it must not crash the exit.
    if (sig === 'SIGHUP') process.stderr.on('error', () => undefined);
    if (phase === 'checking') {
      const cancelling = o.abort();
      const message = `launch cancelled: nothing was started on ${o.targetName}`;
      // --json: the same one line a script gets for any other failure.
      if (o.json)
        process.stdout.write(
          `${JSON.stringify({ type: 'cli-error', exit: CODES[sig], code: 'launch-cancelled', message, hint: '' })}\n`,
        );
      o.err(`awrl-tui: ${message}`);
      if (!cancelling) process.exit(CODES[sig]);
      const late = new Promise((r) => setTimeout(r, 10_000).unref());
      void Promise.race([cancelling, late]).finally(() => process.exit(CODES[sig]));
      phase = 'done';
      return;
    }
    if (phase === 'starting' && !interrupted) {
      interrupted = true;
      o.err(
        `awrl-tui: ${runId} is being started on ${o.targetName}: finishing that first (a start is never left half-done)`,
      );
      return;
    }
    if (phase === 'starting') {
      o.err(
        `awrl-tui: left the start of ${runId} to finish on ${o.targetName} by itself; see it with: awrl-tui runs ${o.where}`,
      );
      process.exit(CODES[sig]);
    }
  };
  for (const s of SIGNALS) process.on(s, on);
  const release = () => {
    for (const s of SIGNALS) process.off(s, on);
  };
  return {
    starting: (id) => {
      phase = 'starting';
      runId = id;
    },
    started: (id) => {
      phase = 'done';
      if (interrupted) o.err(`awrl-tui: run ${id} started (Ctrl-C again to leave it running)`);
      return interrupted;
    },
    release,
  };
}
