// `follow` and `--launch --follow` keep, of the stats keys, only the series the alert rules read
// (RULE_SERIES_KEYS): the others are read from the latest step alone. A store kept that way must
// make the rules say exactly what a store of every key says: the same alerts, fired and cleared at
// the same records and ticks, on every fixture log (real exit paths, crashes, hangs, resumes) and
// on steps whose reward stays 0 (the one rule that reads a key's history).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { MetricsStore, RULE_SERIES_KEYS } from '../../src/metrics/index.js';
import { parseLogBytes, type StepEvent, type TrainerEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';
import { fixtureLogs as logs } from './fixture-logs.js';
import { WatchRules, type Told } from '../runs/watch-rules.js';

const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;
const WALL = 1e12;

/** What the rules told, record by record, then on ticks up to a day after the last record. */
function told(events: readonly TrainerEvent[], store: MetricsStore): Told[] {
  const rules = new WatchRules({ maxHeadOffpolicyness: 4, recoverFreqSecs: 600 }, store);
  const out = events.map((e, i) => rules.push(e, WALL + i * 1000));
  for (let h = 1; h <= 24; h++) out.push(rules.tick(WALL + events.length * 1000 + h * 3600_000));
  out.push(rules.setEnded(true, WALL + events.length * 1000 + 25 * 3600_000));
  return out;
}

const rulesOnly = () => new MetricsStore({ capacity: 256, seriesKeys: RULE_SERIES_KEYS });
const everyKey = () => new MetricsStore({ capacity: 256 });

describe('a store of the rules series only', () => {
  const all = logs();

  it.each(all.map(([name, events]) => [name, events] as const))('%s: the rules tell the same', (_name, events) => {
    const full = told(events, everyKey());
    expect(told(events, rulesOnly())).toEqual(full);
  });

  it('the fixtures make the rules speak (the comparison is not of silences)', () => {
    const fired = all.flatMap(([, events]) => told(events, everyKey())).flatMap((t) => t.fired.map((a) => a.id));
    expect(new Set(fired).size).toBeGreaterThanOrEqual(5);
  });

  it('three steps of reward 0 fire reward-zero in both, a step with a reward clears it in both', () => {
    const steps = parseLogBytes(readFileSync(`${RUN_A}main.log`)).filter((e): e is StepEvent => e.type === 'step');
    expect(steps.length).toBeGreaterThanOrEqual(5);
    // New stats objects (no parser columns): the store's key-by-key path.
    const events = steps.slice(0, 5).map((e, i) => ({
      ...e,
      stats: { ...e.stats, 'rollout/reward': i < 4 ? 0 : 0.5 },
    }));
    const full = told(events, everyKey());
    const ids = full.flatMap((t) => t.fired.map((a) => a.id));
    expect(ids).toContain('reward-zero');
    expect(full.flatMap((t) => t.cleared.map((a) => a.id))).toContain('reward-zero');
    expect(told(events, rulesOnly())).toEqual(full);
  });

  it('keeps only those series, and every key of the latest step', () => {
    const store = rulesOnly();
    const events = parseLogBytes(readFileSync(`${RUN_A}main.log`));
    for (const e of events) store.ingest(e);
    expect(store.keys().sort()).toEqual(['derived/step_time_s', ...RULE_SERIES_KEYS].sort());
    const last = store.lastStepEvent!;
    for (const [k, v] of Object.entries(last.stats)) expect(Object.is(store.current(k), v)).toBe(true);
    const full = everyKey();
    for (const e of events) full.ingest(e);
    for (const k of RULE_SERIES_KEYS) expect(store.recent(k)).toEqual(full.recent(k));
    expect(store.recent('derived/step_time_s')).toEqual(full.recent('derived/step_time_s'));
  });
});
