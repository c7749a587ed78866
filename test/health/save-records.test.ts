// The controller's checkpoint-save records, as the health rules get them: from the one reader of
// the log (src/trainer-log's TrainerLogReader), among its events.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { TrainerLogReader, type ReaderEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';

const FIX = `${SHARED}fixtures/areal-logs/run-a`;
const expected = [
  { type: 'save', time: '2026-05-25T13:02:18.087', step: 4, what: 'HF + DCP checkpoints (periodic (1200s), step=4)' },
  { type: 'save', time: '2026-05-25T16:18:39.120', step: 9, what: 'HF + DCP checkpoints (periodic (1200s), step=9)' },
];

function savesOf(chunks: Uint8Array[], opts: ConstructorParameters<typeof TrainerLogReader>[0] = {}): ReaderEvent[] {
  const r = new TrainerLogReader({ lines: false, ...opts });
  const events = chunks.flatMap((c) => r.push(c).events);
  events.push(...r.end().events);
  return events.filter((e) => e.type === 'save');
}

describe('checkpoint save records', () => {
  it.each(['main.log', 'merged.log', 'stdout.log'])('finds the controller saves in %s', (name) => {
    expect(savesOf([readFileSync(`${FIX}/${name}`)])).toEqual(expected);
  });

  it('gives the same events for any chunking of the bytes', () => {
    const bytes = readFileSync(`${FIX}/merged.log`);
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 20; round++) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length;) {
        const n = 1 + Math.floor(rnd() * 5000);
        chunks.push(bytes.subarray(i, i + n));
        i += n;
      }
      expect(savesOf(chunks)).toEqual(expected);
    }
  });

  it('ignores worker lines and non-INFO mentions', () => {
    const hdr =
      '\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m \x1b[36m20260525-13:02:18.087 RLTrainer INFO: Saving HF + DCP checkpoints (periodic (1200s), step=4)\x1b[0m';
    const step = (line: string) => savesOf([Buffer.from(`${line}\n`)]).map((e) => e.type === 'save' && e.step);
    expect(step(hdr)).toEqual([4]);
    expect(step(`[main]    ${hdr}`)).toEqual([4]);
    expect(step(`[actor]   ${hdr}`)).toEqual([]);
    expect(step(`(RayRPCServer pid=1, ip=10.0.0.9) ${hdr}`)).toEqual([]);
    expect(step('(AReaL) 20260525-13:02:18.087 X WARNING: Saving checkpoints failed')).toEqual([]);
    expect(step('(AReaL) 20260525-13:02:18.087 Saver INFO: Saving the model')).toEqual([]);
  });

  it('a long line is not held: the save after it comes out with its own bytes', () => {
    // The reader's memory bound is the parser's record cap (maxRecordBytes), not a line length.
    const line =
      '(AReaL) 20260525-13:02:18.087 RLTrainer INFO: Saving DCP checkpoints step=1 ' + 'x'.repeat(5000) + '\n';
    const next = Buffer.from('(AReaL) 20260525-13:02:19.000 RLTrainer INFO: Saving DCP checkpoints step=2\n');
    const r = new TrainerLogReader({ lines: false, maxRecordBytes: 1024 });
    r.push(Buffer.from(line));
    expect(r.push(next).events.filter((e) => e.type === 'save')).toMatchObject([{ step: 2 }]);
  });
});
