// Simulated time. Log timestamps follow a virtual clock that starts at the real start time and
// advances by each phase's simulated duration; unless the run is `instant`, the process also waits
// in real time until the wall clock catches up, so timestamps and wall time agree in a live demo.

export class SimClock {
  private readonly startMs = Date.now();
  private offsetMs = 0;
  constructor(private readonly realTime: boolean) {}

  now(): number {
    return Math.round(this.startMs + this.offsetMs);
  }

  /** Advance by `seconds` of simulated time (waiting in real time unless instant). */
  async advance(seconds: number): Promise<void> {
    this.offsetMs += Math.max(0, seconds) * 1000;
    if (!this.realTime) return;
    const due = this.startMs + this.offsetMs;
    while (Date.now() < due) await new Promise((r) => setTimeout(r, Math.min(250, due - Date.now())));
  }

  /** Real seconds since the process started (the trainer's `Total time elapsed`). */
  elapsedS(): number {
    return this.realTime ? (Date.now() - this.startMs) / 1000 : this.offsetMs / 1000;
  }
}
