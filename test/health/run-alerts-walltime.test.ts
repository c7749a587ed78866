// The Slurm wall-time rule inside RunAlerts (setSlurmEndTime): it runs like every other rule, on the
// log's clock and into the history, with no caller wrapping HealthMonitor.evaluate to slip the job's
// end in.
import { describe, expect, it } from 'vitest';
import { RunAlerts } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import { iso, RunBuilder } from './synth.js';

const WALL = 1e12;
const ID = 'health/slurm/walltime';

describe('RunAlerts: the Slurm job end', () => {
  // Steps of ~11.6 min; the last checkpoint was saved during step 4; recover.freq_secs = 3600.
  const build = () =>
    new RunBuilder().steps(3, { rolloutS: 600 }).addStep({ rolloutS: 600, saveS: 3 }).steps(2, { rolloutS: 600 });

  it('warns when the job ends before the next recover checkpoint plus a step; clears when the end moves or is unknown', () => {
    const b = build();
    const r = new RunAlerts(new MetricsStore(), { recoverFreqSecs: 3600 });
    for (const e of b.events) r.ingest(e, WALL);
    expect(r.active.map((a) => a.id)).not.toContain(ID);
    const saveMs = Date.parse(`${b.events.find((e) => e.type === 'save')!.time}Z`);
    const due = saveMs + 3600_000;
    r.setSlurmEndTime(iso(due + 697_000 - 60_000));
    expect(r.evaluate(WALL + 1000).map((a) => a.id)).toContain(ID);
    expect(r.history.entries().find((e) => e.key === ID)).toMatchObject({ active: true, fired: 1 });
    r.setSlurmEndTime(iso(due + 697_000 + 60_000)); // scontrol raised the limit
    expect(r.evaluate(WALL + 2000).map((a) => a.id)).not.toContain(ID);
    r.setSlurmEndTime(iso(due + 697_000 - 60_000));
    expect(r.evaluate(WALL + 3000).map((a) => a.id)).toContain(ID);
    r.setSlurmEndTime(null);
    expect(r.evaluate(WALL + 4000).map((a) => a.id)).not.toContain(ID);
    expect(r.history.entries().find((e) => e.key === ID)).toMatchObject({ active: false, fired: 2 });
  });

  it('needs recover.freq_secs', () => {
    const b = build();
    const r = new RunAlerts(new MetricsStore());
    for (const e of b.events) r.ingest(e, WALL);
    r.setSlurmEndTime(iso(b.t + 60_000));
    expect(r.evaluate(WALL + 1000).map((a) => a.id)).not.toContain(ID);
  });
});
