// The fast paths compare remembered bytes eight at a time, as doubles (a table's key cells, a
// header form's bytes around its timestamp, a worker's prefix), and copy the usual `-1.2345e-03`
// value as two words (table.ts sameBytes, sci4Length; line-bytes.ts sameWordsAt). Equal doubles
// are equal bytes except +0 and -0 (and NaN is equal to nothing): bytes like those, values at the
// edges of the word copy, and state restored without the doubles read as on the general path.
import { describe, expect, it } from 'vitest';
import { JsonLinesParser, TrainerLogParser, parseLogBytes } from '../../src/trainer-log/index.js';
import type { KeyBytes } from '../../src/trainer-log/table-cells.js';
import { rec, table } from './helpers.js';
import { expectSamePaths } from './same-paths.js';

let seed = 11;
const rand = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;

/** One train step's records and table; `\u0001` in a key stands for byte 0x80, `\u0002` for 0xF0
 *  and `\u0003` for 0x7F (bytes a JS string cannot put in UTF-8 text as they are). */
function step(i: number, stats: [string, string][]): string {
  const t = `20260525-12:10:${String(i % 60).padStart(2, '0')}.000`;
  return [
    rec(t, 'StatsLogger', 'INFO', `Epoch 1/2 Step ${i}/99 Train step ${i}/99 done.`),
    rec(t, 'StatsLogger', 'INFO', 'Stats (1/1):'),
    rec(t, 'StatsLogger', 'INFO', ''),
    table(stats),
  ].join('\n');
}

function bytes(text: string): Buffer {
  const b = Buffer.from(text + '\n', 'utf8');
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 1) b[i] = 0x80;
    else if (b[i] === 2) b[i] = 0xf0;
    else if (b[i] === 3) b[i] = 0x7f;
  }
  return b;
}

const NUL16 = '\0'.repeat(16);
const plain = (k: number): [string, string] => [`ppo_actor/update/extra_${k}/avg`, '1.2345e-03'];

describe('key cells compared as doubles', () => {
  it('a key of zero bytes is not taken for one whose bytes read as -0', () => {
    // A step remembers a key cell with 8-byte words of zeros (its layout stays remembered: the
    // next step's other key goes to the other layout); the next one puts 0x80 where one of those
    // words ends, at every offset in turn: as doubles +0 === -0, as bytes they differ.
    const zero = (i: number) => step(i, [plain(0), [`z${NUL16}z`, '1.0000e+00'], plain(1), plain(2)]);
    const steps: string[] = [];
    for (let j = 0; j < 16; j++) {
      const key = `z${'\0'.repeat(j)}\u0001${'\0'.repeat(15 - j)}z`;
      steps.push(zero(2 * j), step(2 * j + 1, [plain(0), [key, '2.0000e+00'], plain(1), plain(2)]));
    }
    const events = expectSamePaths(bytes(steps.join('\n')), 'zero words', rand);
    const keys = events.filter((e) => e.type === 'step').map((e) => Object.keys(e.stats)[1]);
    expect(new Set(keys).size).toBe(17);
  });

  it('key cells whose words read as NaN (invalid UTF-8 bytes 0xF0 0x7F) are read all the same', () => {
    const odd = '\u0002\u0003'.repeat(8);
    const steps: string[] = [];
    for (let i = 0; i < 6; i++)
      steps.push(step(i, [plain(0), [`n${odd}`, '3.0000e+00'], [`nn${odd}`, '4.0000e+00'], plain(i % 2 ? 3 : 4)]));
    const events = expectSamePaths(bytes(steps.join('\n')), 'NaN words', rand);
    expect(events.filter((e) => e.type === 'step')).toHaveLength(6);
  });

  it('a key cell without its doubles (restored from an older watch snapshot) is compared all the same', () => {
    const stats = (i: number): [string, string][] => [plain(0), plain(1), [`k/${i % 2}`, '5.0000e+00'], plain(3)];
    const first = bytes(step(0, stats(0)));
    const rest = bytes([1, 2, 3].map((i) => step(i, stats(i))).join('\n'));
    const p = new TrainerLogParser();
    const events = p.push(first);
    // What a snapshot of a build before KeyBytes.quads restores: cells with bytes and words only.
    const intern = (p as unknown as { steps: { intern: { raws: (KeyBytes | undefined)[][] } } }).steps.intern;
    let stripped = 0;
    for (const layout of intern.raws)
      for (const cell of layout)
        if (cell?.quads !== undefined) {
          delete cell.quads;
          stripped++;
        }
    expect(stripped).toBeGreaterThan(0);
    events.push(...p.push(rest), ...p.end());
    expect(events).toEqual(parseLogBytes(Buffer.concat([first, rest]), { fastPaths: false }));
  });
});

describe('header forms and writer prefixes compared as doubles', () => {
  it('a form or a writer without its doubles (restored from an older watch snapshot) is matched all the same', () => {
    const worker = (i: number, level: string) =>
      `(RayRPCServer pid=${48000 + (i % 3)}, ip=10.0.0.${i % 3}) ` +
      rec(`20260525-12:10:0${i % 10}.000`, 'WebGymWorkflow', level, `episode ${i}`);
    const lines = (from: number) =>
      Array.from({ length: 12 }, (_, k) => from + k).flatMap((i) => [
        worker(i, i % 4 === 0 ? 'WARNING' : 'INFO'),
        rec(
          `20260525-12:10:0${i % 10}.000`,
          'IOStruct',
          'INFO',
          `Memory-Usage ppo update: memory allocated (GB): 1.5, memory reserved (GB): 2.5, device memory used/total (GB): 3.5/80.0`,
        ),
      ]);
    const first = bytes(lines(0).join('\n'));
    const rest = bytes(lines(12).join('\n'));
    const p = new TrainerLogParser();
    const events = p.push(first);
    type Form = { headQ?: Float64Array; tailQ?: Float64Array };
    type W = { prefixQuads?: Float64Array | null; heads: { forms: Form[] } };
    const writers = (p as unknown as { writers: { main: W; byPrefix: Map<string, W> } }).writers;
    let stripped = 0;
    for (const w of [writers.main, ...writers.byPrefix.values()]) {
      if (w.prefixQuads) stripped++;
      delete w.prefixQuads;
      for (const f of w.heads.forms) {
        if (f.headQ && f.tailQ) stripped++;
        delete f.headQ;
        delete f.tailQ;
      }
    }
    expect(stripped).toBeGreaterThan(4);
    events.push(...p.push(rest), ...p.end());
    expect(events).toEqual(parseLogBytes(Buffer.concat([first, rest]), { fastPaths: false }));
  });
});

describe('values copied as words', () => {
  const VALUES = [
    '1.2345e-03',
    '-1.2345e-03',
    '1.2345e+001',
    '1.2345e+0',
    '-1.2345e-0x',
    '1.2345e-03é',
    '12.345e-03',
    '1.2345E-03',
    'nan',
    '-inf',
  ];

  it('read the same as the general path, in any column, next to any neighbour', () => {
    const steps: string[] = [];
    for (let i = 0; i < 40; i++) {
      const n = 1 + (i % 9);
      steps.push(
        step(
          i,
          Array.from({ length: n }, (_, k): [string, string] => [`k/${k}`, VALUES[(i + 3 * k) % 10]]),
        ),
      );
    }
    // A value right before its bar, with no padding: its run ends at the bar's first byte.
    steps.push(step(40, [['k/0', '1.2345e-03']]).replace(' 1.2345e-03 │', ' 1.2345e-03│'));
    expectSamePaths(bytes(steps.join('\n')), 'values', rand);
  });

  it('the JSON line holds the printed bytes of a value, nothing past them', () => {
    const log = bytes(
      [
        step(1, [
          ['a', '-1.2345e-03'],
          ['b', '1.0000e+00'],
        ]),
        step(2, [
          ['a', '2.5000e-01'],
          ['b', '-7.0000e+02'],
        ]),
      ].join('\n'),
    );
    const p = new JsonLinesParser();
    const out = Buffer.concat([Buffer.from(p.push(log)), Buffer.from(p.end())]).toString('utf8');
    const lines = out.trim().split('\n');
    expect(lines[0]).toContain('"stats":{"a":-1.2345e-03,"b":1.0000e+00}}');
    expect(lines[1]).toContain('"stats":{"a":2.5000e-01,"b":-7.0000e+02}}');
  });
});
