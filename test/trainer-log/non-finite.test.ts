// `inf`, `-inf` and `nan` in a stats table are three different facts (trainer.md §6): the events
// keep them as Infinity, -Infinity and NaN, a cell that holds no number is null, and the JSON
// Lines form (`parse --json`, `--follow --json`) writes the non-finite ones as the JSON strings
// "inf", "-inf", "nan" (JSON has no spelling for them), which eventFromJsonLine reads back.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  JsonLinesParser,
  eventFromJsonLine,
  eventToJsonLine,
  statJsonValue,
  statsFromJson,
  type StepEvent,
} from '../../src/trainer-log/index.js';
import { jsonStat } from '../../src/trainer-log/json.js';
import { parseAll, stepRecords } from './helpers.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const T = '20260601-10:00:00.000';
const CELLS: [string, string][] = [
  ['ppo_actor/update/grad_norm', 'nan'],
  ['ppo_actor/update/actor_loss/avg', 'inf'],
  ['ppo_actor/update/importance_weight/avg', '-inf'],
  ['rollout/reward', '2.5000e-01'],
  ['timeperf/train_step', '1.2000e+02'],
  ['n/a', 'N/A'],
];
const LOG = stepRecords(T, 3, CELLS) + '\n';
const LINE =
  '{"type":"step","epoch":1,"epochs":2,"step":3,"stepsPerEpoch":10,"globalStep":3,"totalSteps":20,"time":"2026-06-01T10:00:00.000",' +
  '"stats":{"ppo_actor/update/grad_norm":"nan","ppo_actor/update/actor_loss/avg":"inf","ppo_actor/update/importance_weight/avg":"-inf",' +
  '"rollout/reward":2.5000e-01,"timeperf/train_step":1.2000e+02,"n/a":null}}';

function onlyStep(text: string): StepEvent {
  const steps = parseAll(text).filter((e): e is StepEvent => e.type === 'step');
  expect(steps).toHaveLength(1);
  return steps[0];
}

describe('nan, inf and -inf in a stats table', () => {
  it('are NaN, Infinity and -Infinity in the event; text that is no number is null', () => {
    const s = onlyStep(LOG).stats;
    expect(Number.isNaN(s['ppo_actor/update/grad_norm'])).toBe(true);
    expect(s['ppo_actor/update/actor_loss/avg']).toBe(Infinity);
    expect(s['ppo_actor/update/importance_weight/avg']).toBe(-Infinity);
    expect(s['rollout/reward']).toBe(0.25);
    expect(s['n/a']).toBeNull();
  });

  it('are the JSON strings "nan", "inf", "-inf" in the JSON line, finite values stay numbers', () => {
    expect(eventToJsonLine(onlyStep(LOG))).toBe(LINE);
  });

  it('JsonLinesParser (parse --json) writes the same bytes, whole and byte by byte', () => {
    const bytes = Buffer.from(LOG, 'utf8');
    const whole = new JsonLinesParser();
    expect(Buffer.concat([Buffer.from(whole.push(bytes)), Buffer.from(whole.end())]).toString('utf8')).toBe(
      LINE + '\n',
    );
    const bytewise = new JsonLinesParser();
    const out: Buffer[] = [];
    for (let i = 0; i < bytes.length; i++) out.push(Buffer.from(bytewise.push(bytes.subarray(i, i + 1))));
    out.push(Buffer.from(bytewise.end()));
    expect(Buffer.concat(out).toString('utf8')).toBe(LINE + '\n');
  });

  it('the built CLI parse --json writes them so, and `parse --help` says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-nonfinite-'));
    try {
      writeFileSync(join(dir, 'main.log'), LOG);
      const r = spawnSync(process.execPath, [BIN, 'parse', '--json', join(dir, 'main.log')], { encoding: 'utf8' });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(LINE + '\n');
      const help = spawnSync(process.execPath, [BIN, 'parse', '--help'], { encoding: 'utf8' });
      expect(help.status).toBe(0);
      expect(help.stdout.replace(/\s+/g, ' ')).toContain(
        'a non-finite value is the JSON string "nan", "inf" or "-inf"',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('round-trip: eventFromJsonLine gives the event back, the three apart', () => {
    const e = onlyStep(LOG);
    const back = eventFromJsonLine(eventToJsonLine(e)) as StepEvent;
    expect(back).toEqual(e);
    expect(Object.is(back.stats['ppo_actor/update/actor_loss/avg'], Infinity)).toBe(true);
    expect(Object.is(back.stats['ppo_actor/update/importance_weight/avg'], -Infinity)).toBe(true);
    expect(Number.isNaN(back.stats['ppo_actor/update/grad_norm'])).toBe(true);
    expect(back.stats['n/a']).toBeNull();
  });

  it('a step event built by hand (no printed texts) is written the same way', () => {
    const e: StepEvent = { ...onlyStep(LOG), stats: { a: NaN, b: Infinity, c: -Infinity, d: null, e: 0.5, f: -0 } };
    expect(eventToJsonLine(e)).toBe(
      LINE.replace(/"stats":.*$/, '"stats":{"a":"nan","b":"inf","c":"-inf","d":null,"e":0.5,"f":0}}'),
    );
  });

  it('round-trip for any stats values (property)', () => {
    const value = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, null, 0, 1e300, 5e-324));
    const stats = fc.dictionary(
      fc.string({ minLength: 1 }).filter((k) => k !== '__proto__'),
      value,
    );
    fc.assert(
      fc.property(stats, (st) => {
        const e: StepEvent = {
          type: 'step',
          epoch: 1,
          epochs: 1,
          step: 1,
          stepsPerEpoch: 1,
          globalStep: 1,
          totalSteps: 1,
          time: 't',
          stats: st,
        };
        const back = eventFromJsonLine(eventToJsonLine(e)) as StepEvent;
        // -0 reads back as 0 (JSON.stringify writes 0 for it): the only value not kept.
        expect(back.stats).toEqual(
          Object.fromEntries(Object.entries(st).map(([k, v]) => [k, Object.is(v, -0) ? 0 : v])),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('jsonStat (the byte writer) agrees with JSON.stringify of statJsonValue for any value', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, null, -0, 1e21, 5e-324, 0.1 + 0.2)),
        (v) => {
          expect(jsonStat(v)).toBe(JSON.stringify(statJsonValue(v)));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('statsFromJson refuses a string that parse --json never writes', () => {
    expect(() => statsFromJson({ x: 'NaN' })).toThrow(/"x" is "NaN"/);
  });
});
