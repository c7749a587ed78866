// One staleness condition, one alert. Staleness above rollout.max_head_offpolicyness is two
// conditions with different causes and fixes, and each has one owner:
// - from a resume on: every step of the new attempt so far over budget, when the attempt before it
//   was within budget at its last step: `health/resume/staleness` (the recovery is the suspect);
// - otherwise (no resume, a resumed attempt that has been within budget once, or staleness already
//   over budget before the crash): the metrics room's `staleness-over-budget`, steady staleness.
// Through RunAlerts, which the cockpit's panel and `follow` both use, they never stand together.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunAlerts } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import { WatchRules } from '../runs/watch-rules.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';

const WALL = 1e12;
const MIN = 60_000;
const T0 = Date.UTC(2026, 4, 25, 3, 0, 0);
const BUDGET = 2;
const STALE = 'staleness/gap/offpolicy_max';
const RESUME_ID = 'health/resume/staleness';
const STEADY_ID = 'staleness-over-budget';

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 23);

/** A run's records on a 10-minute step clock: `s<g>:<staleness>` a step (`-` = no staleness key),
 *  `r<g>` a resume at step g, `x` an error. */
function records(spec: string): TrainerEvent[] {
  let t = T0;
  return spec.split(' ').map((tok): TrainerEvent => {
    t += 10 * MIN;
    if (tok === 'x') return { type: 'error', message: 'crash', detail: '', kind: 'other', time: iso(t) };
    if (tok.startsWith('r')) return { type: 'resume', resumeStep: Number(tok.slice(1)), time: iso(t) };
    const [g, v] = tok.slice(1).split(':');
    const stats: Record<string, number | null> = { 'rollout/reward': 0.5 };
    if (v !== '-') stats[STALE] = v === 'nan' ? null : Number(v);
    return {
      type: 'step',
      epoch: 1,
      epochs: 1,
      step: Number(g),
      stepsPerEpoch: 100,
      globalStep: Number(g),
      totalSteps: 100,
      time: iso(t),
      stats,
    };
  });
}

/** The staleness alerts active after each record. */
function trace(spec: string, budget: number | null = BUDGET): { r: RunAlerts; after: string[][] } {
  const r = new RunAlerts(new MetricsStore(), budget === null ? {} : { maxHeadOffpolicyness: budget });
  const after: string[][] = [];
  for (const e of records(spec)) {
    r.ingest(e, WALL);
    after.push(r.active.filter((a) => a.id === RESUME_ID || a.id === STEADY_ID).map((a) => a.id));
  }
  return { r, after };
}

describe('staleness: one condition, one alert', () => {
  it('steady staleness (no resume) is the metrics rule alone, while the latest step is over budget', () => {
    const { after } = trace('s1:1 s2:3 s3:4 s4:2');
    expect(after).toEqual([[], [STEADY_ID], [STEADY_ID], []]);
  });

  it('over budget from the resume on is the resume guard alone, until the first step within budget; later overruns are steady', () => {
    const { r, after } = trace('s1:1 s2:2 x r3 s3:4 s4:3 s5:2 s6:5');
    expect(after).toEqual([[], [], [], [], [RESUME_ID], [RESUME_ID], [], [STEADY_ID]]);
    const h = r.history.entries();
    const resume = h.find((e) => e.key === RESUME_ID)!;
    expect(resume).toMatchObject({ active: false, fired: 1, firstStep: 3, lastStep: 4 });
    expect(h.find((e) => e.key === STEADY_ID)).toMatchObject({ active: true, fired: 1, firstStep: 6 });
  });

  it('the two say the difference: after the resume vs steady', () => {
    const resumed = trace('s1:1 r2 s2:4').r.active.find((a) => a.id === RESUME_ID)!;
    expect(resumed.title).toMatch(/since the resume/);
    expect(resumed.detail).toContain('every step since resuming at step 2');
    expect(resumed.detail).toContain(`${STALE} 4 at step 2`);
    expect(resumed.detail).toContain('rollout.max_head_offpolicyness = 2');
    const steady = trace('s1:1 s2:4').r.active.find((a) => a.id === STEADY_ID)!;
    expect(steady.title).toMatch(/steady/);
    expect(steady.title).not.toEqual(resumed.title);
    expect(steady.detail).toContain(`${STALE} = 4 > rollout.max_head_offpolicyness = 2`);
  });

  it('staleness already over budget before the crash stays the steady alert across the resume (the resume did not cause it)', () => {
    const { r, after } = trace('s1:3 s2:4 x r3 s3:4 s4:1');
    expect(after).toEqual([[STEADY_ID], [STEADY_ID], [STEADY_ID], [STEADY_ID], [STEADY_ID], []]);
    expect(r.history.entries().some((e) => e.key === RESUME_ID)).toBe(false);
  });

  it('a step without the staleness key neither opens nor ends the resume episode', () => {
    const { after } = trace('s1:1 r2 s2:- s3:4 s4:- s5:1');
    expect(after).toEqual([[], [], [], [RESUME_ID], [RESUME_ID], []]);
  });

  it('each resume is judged afresh; without a budget neither fires', () => {
    expect(trace('s1:1 r2 s2:1 s3:1 r4 s4:5').after.at(-1)).toEqual([RESUME_ID]);
    expect(trace('s1:1 r2 s2:5 s3:1', null).after.flat()).toEqual([]);
  });

  it("follow (RunWatch, over the same RunAlerts) prints one alert per condition: the resume's, then the steady one", () => {
    const fa = new WatchRules({ maxHeadOffpolicyness: BUDGET });
    const printed: string[] = [];
    for (const e of records('s1:1 x r2 s2:4 s3:5 s4:1 s5:3 s6:4')) {
      for (const a of fa.push(e, WALL).fired)
        if (a.id === RESUME_ID || a.id === STEADY_ID) printed.push(`${a.id}@${a.step}`);
    }
    expect(printed).toEqual([`${RESUME_ID}@2`, `${STEADY_ID}@5`]);
    expect(fa.active.filter((a) => a.id === RESUME_ID || a.id === STEADY_ID).map((a) => a.id)).toEqual([STEADY_ID]);
  });

  it('whatever the stream: never both; exactly one when the latest step is over budget', () => {
    const tok = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('-', 'nan', '0', '1', '2', '3', '5').map((v) => ({ step: true, v })) },
      { weight: 1, arbitrary: fc.constantFrom('r', 'x').map((v) => ({ step: false, v })) },
    );
    fc.assert(
      fc.property(fc.array(tok, { minLength: 1, maxLength: 40 }), (toks) => {
        let g = 0;
        const spec = toks.map((t) => (t.step ? `s${++g}:${t.v}` : t.v === 'r' ? `r${g + 1}` : 'x')).join(' ');
        const { after } = trace(spec);
        let latest: number | null = null;
        toks.forEach((t, i) => {
          if (t.step) latest = t.v === '-' || t.v === 'nan' ? null : Number(t.v);
          expect(after[i].length).toBeLessThanOrEqual(1);
          if (latest !== null && latest > BUDGET) expect(after[i]).toHaveLength(1);
        });
      }),
      { numRuns: 150 },
    );
  });
});
