// The rules as RunWatch runs them (what `follow` prints alerts from) run the Slurm wall-time rule:
// the job's end set (RunWatch sets it and ticks at once), the last recover checkpoint dated by the
// trainer's save record pushed among the events, and the alert said to clear when the end moves
// later or is no longer known.
import { describe, expect, it } from 'vitest';
import { WatchRules } from './watch-rules.js';
import { iso, RunBuilder } from '../health/synth.js';

const WALL = 1e12;
const ID = 'health/slurm/walltime';

describe("the watch's rules: the Slurm job end", () => {
  // ~11.6-min steps; a checkpoint saved during step 4; recover.freq_secs = 3600.
  const run = () =>
    new RunBuilder().steps(3, { rolloutS: 600 }).addStep({ rolloutS: 600, saveS: 3 }).steps(2, { rolloutS: 600 });

  it('fires when the end comes before the next checkpoint plus a step, and clears when scontrol moves it later', () => {
    const b = run();
    const fa = new WatchRules({ recoverFreqSecs: 3600 });
    const ids = (as: readonly { id: string }[]) => as.map((a) => a.id);
    for (const e of b.events) expect(ids(fa.push(e, WALL).fired)).not.toContain(ID);
    const due = Date.parse(`${b.events.find((e) => e.type === 'save')!.time}Z`) + 3600_000;
    const told = fa.setSlurmEndTime(iso(due - 60_000), WALL + 1000);
    expect(ids(told.fired)).toEqual([ID]);
    expect(told.fired[0].detail).toMatch(
      /the next recover checkpoint is due in ~\d+ min( \d+ s)? plus a step of ~\d+ min( \d+ s)?: the steps after step \d+ would be lost$/,
    );
    expect(told.cleared).toEqual([]);
    // The same end again: nothing new.
    expect(fa.setSlurmEndTime(iso(due - 60_000), WALL + 2000)).toEqual({ fired: [], cleared: [], ended: [] });
    // scontrol moved the end past the checkpoint: it stops standing.
    const later = fa.setSlurmEndTime(iso(due + 3600_000), WALL + 3000);
    expect([ids(later.fired), ids(later.cleared)]).toEqual([[], [ID]]);
    expect(ids(fa.setSlurmEndTime(iso(due - 60_000), WALL + 4000).fired)).toEqual([ID]);
    const unknown = fa.setSlurmEndTime(null, WALL + 5000);
    expect([ids(unknown.fired), ids(unknown.cleared)]).toEqual([[], [ID]]);
  });

  it('without the save record the checkpoint is not dated: what would be lost is said without a step', () => {
    const b = run();
    const fa = new WatchRules({ recoverFreqSecs: 3600 });
    for (const e of b.events) if (e.type !== 'save') fa.push(e, WALL);
    const [a] = fa.setSlurmEndTime(iso(b.t + 60_000), WALL + 1000).fired;
    expect(a?.id).toBe(ID);
    expect(a.detail).toMatch(/the steps since the last recover checkpoint would be lost$/);
  });

  it('no recover.freq_secs, no wall-time rule', () => {
    const b = run();
    const fa = new WatchRules();
    for (const e of b.events) fa.push(e, WALL);
    expect(fa.setSlurmEndTime(iso(b.t + 60_000), WALL + 1000).fired).toEqual([]);
  });
});
