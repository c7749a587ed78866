// The alert rules as RunWatch composes them (src/watch/run-watch.ts), without the Transport and log
// file it reads records from: RunAlerts over a store takes each record (`ingest`: the arriving /
// store / read sequence RunWatch.ingest runs), the time rules run on a tick, and AlertChanges turns
// the answers into the `alert` / `alert-cleared` outputs both renderers (cockpit, `follow`) show.
import { RunAlerts, type HealthEvent, type RunAlertsOptions } from '../../src/health/index.js';
import { MetricsStore, type Alert } from '../../src/metrics/index.js';
import { AlertChanges } from '../../src/watch/watch-output.js';

/** What the watch tells after one record or tick: what fired, what stopped standing (cleared, or
 *  ended with the run: a hang the run died in). */
export interface Told {
  fired: Alert[];
  cleared: Alert[];
  ended: Alert[];
}

export class WatchRules {
  readonly alerts: RunAlerts;
  private readonly changes = new AlertChanges();

  /** `store`: a store of its own (e.g. one that keeps only the rules' series, as `follow` has). */
  constructor(opts: RunAlertsOptions = {}, store = new MetricsStore({ capacity: 256 })) {
    this.alerts = new RunAlerts(store, opts);
  }

  /** One record (or a checkpoint save, in log order) read at wall-clock `wallMs`. */
  push(e: HealthEvent, wallMs: number): Told {
    return this.tell(this.alerts.ingest(e, wallMs));
  }

  /** The time-driven rules (stalls, resume guard, wall time) at wall-clock `wallMs`. */
  tick(wallMs: number): Told {
    const fired: Alert[] = [];
    this.alerts.evaluate(wallMs, fired);
    return this.tell(fired);
  }

  /** The Slurm job's end is known (or no longer): RunWatch sets it, then ticks. */
  setSlurmEndTime(end: string | null, wallMs: number): Told {
    this.alerts.setSlurmEndTime(end);
    return this.tick(wallMs);
  }

  /** The run's state says it ended (or runs again): RunWatch sets it, then ticks. */
  setEnded(ended: boolean, wallMs: number): Told {
    this.alerts.setEnded(ended);
    return this.tick(wallMs);
  }

  get active(): readonly Alert[] {
    return this.alerts.active;
  }

  private tell(fired: readonly Alert[]): Told {
    const told: Told = { fired: [], cleared: [], ended: [] };
    for (const out of this.changes.take(fired, this.alerts.active, (a) => this.alerts.endedWithRun(a))) {
      if (out.type === 'alert') told.fired.push(out.alert);
      else if (out.type === 'alert-cleared') (out.endedWithRun ? told.ended : told.cleared).push(out.alert);
    }
    return told;
  }
}
