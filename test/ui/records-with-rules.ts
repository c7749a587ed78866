// RunRecords (what the cockpit draws) over a store and rules fed by hand, as src/watch's RunWatch
// feeds them: `ingest` stores the record and runs the rules, `view` first lets the rules look at
// the clock (the watch's tick), then derives the frame. For tests of the rules seen through a view.
import { RunAlerts } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import type { HealthEvent } from '../../src/health/index.js';
import { RunRecords, type RunFacts, type RunViewContext } from '../../src/session/run-records.js';
import { ENDED_STATES } from '../../src/session/types.js';

export function recordsWithRules(o: { facts?: RunFacts; clock: () => number }) {
  const store = new MetricsStore();
  const alerts = new RunAlerts(store, { ...(o.facts ?? {}) });
  const records = new RunRecords({ store, alerts, facts: o.facts, clock: o.clock });
  return {
    alerts,
    ingest(e: HealthEvent): void {
      alerts.ingest(e, o.clock());
      records.ingest(e);
    },
    setSlurmEndTime(end: string | null): void {
      alerts.setSlurmEndTime(end);
    },
    view(ctx: RunViewContext) {
      alerts.setEnded(ENDED_STATES.has(ctx.summary.state));
      alerts.evaluate(o.clock());
      return records.view(ctx);
    },
  };
}
export type RecordsWithRules = ReturnType<typeof recordsWithRules>;
