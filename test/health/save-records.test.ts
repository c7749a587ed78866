import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { CheckpointSaveScanner, findCheckpointSaves, parseSaveLine } from '../../src/health/index.js';
import { SHARED } from '../harness/fixtures.js';

const FIX = `${SHARED}fixtures/areal-logs/run-a`;
const expected = [
  { type: 'save', time: '2026-05-25T13:02:18.087', step: 4, what: 'HF + DCP checkpoints (periodic (1200s), step=4)' },
  { type: 'save', time: '2026-05-25T16:18:39.120', step: 9, what: 'HF + DCP checkpoints (periodic (1200s), step=9)' },
];

describe('checkpoint save records', () => {
  it.each(['main.log', 'merged.log', 'stdout.log'])('finds the controller saves in %s', (name) => {
    const text = readFileSync(`${FIX}/${name}`, 'utf8');
    expect(findCheckpointSaves(text)).toEqual(expected);
  });

  it('gives the same events for any chunking of the bytes', () => {
    const bytes = readFileSync(`${FIX}/merged.log`);
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let round = 0; round < 20; round++) {
      const s = new CheckpointSaveScanner();
      const got = [];
      for (let i = 0; i < bytes.length; ) {
        const n = 1 + Math.floor(rnd() * 5000);
        got.push(...s.push(bytes.subarray(i, i + n)));
        i += n;
      }
      got.push(...s.end());
      expect(got).toEqual(expected);
    }
  });

  it('ignores worker lines and non-INFO mentions', () => {
    const hdr = '\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m \x1b[36m20260525-13:02:18.087 RLTrainer INFO: Saving HF + DCP checkpoints (periodic (1200s), step=4)\x1b[0m';
    expect(parseSaveLine(hdr)?.step).toBe(4);
    expect(parseSaveLine(`[main]    ${hdr}`)?.step).toBe(4);
    expect(parseSaveLine(`[actor]   ${hdr}`)).toBeNull();
    expect(parseSaveLine(`(RayRPCServer pid=1, ip=10.0.0.9) ${hdr}`)).toBeNull();
    expect(parseSaveLine('(AReaL) 20260525-13:02:18.087 X WARNING: Saving checkpoints failed')).toBeNull();
    expect(parseSaveLine('(AReaL) 20260525-13:02:18.087 Saver INFO: Saving the model')).toBeNull();
  });

  it('skips an over-long line without holding it', () => {
    const s = new CheckpointSaveScanner(1000);
    const line = '(AReaL) 20260525-13:02:18.087 RLTrainer INFO: Saving DCP checkpoints step=1 ' + 'x'.repeat(5000) + '\n';
    expect(s.push(Buffer.from(line))).toEqual([]);
    expect(s.push(Buffer.from('(AReaL) 20260525-13:02:19.000 RLTrainer INFO: Saving DCP checkpoints step=2\n'))).toHaveLength(1);
  });
});
