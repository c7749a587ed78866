// Simulated time. Log timestamps follow a virtual clock that starts at the real start time and
// advances by each phase's simulated duration; unless the run is `instant`, the process also waits
// in real time until the wall clock catches up, so timestamps and wall time agree in a live demo.
//
// A real trainer's clock is the wall clock, so a restarted run writes times later than the run
// that crashed. In instant mode the virtual clock runs hours ahead of the wall clock: a restart
// starts at the previous process's last time instead (`notBeforeMs`, kept in the trial's memo),
// if that is later than now. The waits are counted from the real start either way, so a live run
// resumed after an instant one does not wait for the wall clock to reach the instant run's times.

/** Between the crashed process's last record and the restarted one's first: a relaunch. */
export const RESTART_GAP_MS = 1000;

export class SimClock {
  private readonly realStartMs = Date.now();
  private readonly startMs: number;
  private offsetMs = 0;
  /** Called with the new time after each advance (a thread of the trainer writes what is due). */
  onAdvance: ((nowMs: number) => void) | null = null;

  constructor(
    private readonly realTime: boolean,
    /** The last time a previous process of this trial wrote (null: none). */
    notBeforeMs: number | null = null,
  ) {
    this.startMs = notBeforeMs === null ? this.realStartMs : Math.max(this.realStartMs, notBeforeMs + RESTART_GAP_MS);
  }

  now(): number {
    return Math.round(this.startMs + this.offsetMs);
  }

  /** Advance by `seconds` of simulated time (waiting in real time unless instant). */
  async advance(seconds: number): Promise<void> {
    this.offsetMs += Math.max(0, seconds) * 1000;
    if (this.realTime) {
      const due = this.realStartMs + this.offsetMs;
      while (Date.now() < due) await new Promise((r) => setTimeout(r, Math.min(250, due - Date.now())));
    }
    this.onAdvance?.(this.now());
  }

  /** Real seconds since the process started (the trainer's `Total time elapsed`). */
  elapsedS(): number {
    return this.realTime ? (Date.now() - this.realStartMs) / 1000 : this.offsetMs / 1000;
  }
}
