// A lone `Train step … done.` line (the attempt chain's, whose tables stay on the target), read
// with the parser's grammar: the same step and time the parser gives that record with its tables.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseLogBytes, stepDoneLine } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';

const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;

describe('stepDoneLine', () => {
  it.each(['stdout.log', 'merged.log'])('names the steps the parser finds in %s', (file) => {
    const buf = readFileSync(RUN_A + file);
    const lines = buf
      .toString('utf8')
      .split('\n')
      .filter((l) => l.includes('Train step'));
    const steps = parseLogBytes(buf).flatMap((e) =>
      e.type === 'step' ? [{ globalStep: e.globalStep, time: e.time }] : [],
    );
    expect(lines.map((l) => stepDoneLine(l)).map((s) => s && { globalStep: s.globalStep, time: s.time })).toEqual(
      steps,
    );
  });

  it('a worker line, a line without a header, a message that is no step: null; CRLF read', () => {
    const line = '(AReaL) 20260525-12:19:55.952 StatsLogger INFO: Epoch 1/10 Step 1/16 Train step 1/160 done.';
    expect(stepDoneLine(`${line}\r`)).toMatchObject({
      globalStep: 1,
      totalSteps: 160,
      time: '2026-05-25T12:19:55.952',
    });
    expect(stepDoneLine(`[actor]   ${line}`)).toBeNull();
    expect(stepDoneLine('Epoch 1/10 Step 1/16 Train step 1/160 done.')).toBeNull();
    expect(stepDoneLine('(AReaL) 20260525-12:19:55.952 StatsLogger INFO: Train step soon')).toBeNull();
  });
});
