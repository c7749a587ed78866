// The target-side filter keeps exactly the lines the awk filter it replaced kept: every line that
// is no table row or separator (empty lines, other box drawing, prefixed rows, bytes that only
// start like one), and the rows holding a key; its output is one gzip stream after a header line.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BACKFILL_KEYS, FILTER_SCRIPT, keyPatterns } from '../../src/session/backfill-filter.js';

const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/', import.meta.url).pathname;

/** The filter as it was (awk), for the comparison. */
const AWK = `BEGIN{n=split(keys,K,"|")} {c=substr($0,1,3)} c=="\\342\\224\\234"{next} c=="\\342\\224\\202"{for(i=1;i<=n;i++) if(index($0,K[i])){print; next}; next} {print}`;

describe('backfill filter', () => {
  it('keeps the same lines as the awk filter, byte for byte', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-bf-filter-'));
    try {
      const odd = [
        '',
        '│ rollout/reward │ 0.5 │',
        '│ other/key │ 1 │',
        '├────┼────┤',
        '╒════╤════╕',
        '╘════╧════╛',
        '[main] │ other/key │ 1 │',
        // Bytes that only start like a row (latin1: one byte each).
        Buffer.from('\xe2', 'latin1'),
        Buffer.from('\xe2\x94', 'latin1'),
        Buffer.from('\xe2\x94\x80 a box line', 'latin1'),
        Buffer.from('\xe2\x95 not a row', 'latin1'),
        '│ a.b*c[d] │ 2 │',
        '│ x │ ppo_actor/update/version_stats/behind │',
        '\x1b[0m│ coloured row │ 3 │',
        '\r',
        'last line without a newline',
      ];
      const bytes = Buffer.concat([
        readFileSync(join(RUN_A, 'stdout.log')),
        readFileSync(join(RUN_A, 'merged.log')),
        Buffer.concat(odd.flatMap((l, i) => [i ? Buffer.from('\n') : Buffer.alloc(0), Buffer.from(l)])),
      ]);
      const log = join(dir, 'log');
      writeFileSync(log, bytes);
      const want = execFileSync('awk', ['-v', `keys=${BACKFILL_KEYS.join('|')}`, AWK], {
        input: bytes,
        env: { ...process.env, LC_ALL: 'C' },
        maxBuffer: 1 << 26,
      });
      const out = execFileSync('bash', ['-c', FILTER_SCRIPT, 'x', String(bytes.length), log, '0', '', keyPatterns()], {
        maxBuffer: 1 << 26,
      });
      const nl = out.indexOf(0x0a);
      expect(out.subarray(0, nl).toString()).toMatch(/^0 \d+ \d+ \d+$/);
      const got = gunzipSync(out.subarray(nl + 1));
      // grep ends the last line with a newline; awk does too.
      expect(got.toString('latin1')).toBe(want.toString('latin1'));
      expect(got.includes(Buffer.from('│ rollout/reward │ 0.5 │\n'))).toBe(true);
      expect(got.includes(Buffer.from('\n│ other/key │ 1 │\n'))).toBe(false);
      expect(got.includes(Buffer.from('\n[main] │ other/key │ 1 │\n'))).toBe(true);
      expect(got.length).toBeLessThan(bytes.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the log's identity at an offset", () => {
  /** The filter's header line: `FROM INODE HEAD SEAM` for [FROM, cut) of `log`, FROM given with the
   *  identity a cache or digest saw there. */
  const header = (log: string, cut: number, from = 0, want = ''): string => {
    const out = execFileSync('bash', ['-c', FILTER_SCRIPT, 'x', String(cut), log, String(from), want, keyPatterns()]);
    return out.subarray(0, out.indexOf(0x0a)).toString();
  };
  const identity = (h: string) => h.split(' ').slice(1).join(' ');

  it('stays the same log when one younger than 4 KiB grows on, and not when its start is rewritten', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-bf-identity-'));
    try {
      const log = join(dir, 'log');
      const line = (i: number) => `line ${i} of the run's log\n`;
      let text = '';
      for (let i = 0; text.length < 300; i++) text += line(i);
      writeFileSync(log, text);
      const young = text.length;
      const seenYoung = identity(header(log, young));
      for (let i = 1000; text.length < 20_000; i++) text += line(i);
      writeFileSync(log, text);
      // A cache or digest made at the young offset is this log's: the filter reads on from there.
      expect(header(log, text.length, young, seenYoung)).toMatch(new RegExp(`^${young} `));
      // Past 4 KiB the head is the first 4 KiB, as it was.
      const mid = text.indexOf('\n', 8000) + 1;
      const seenMid = identity(header(log, mid));
      expect(header(log, text.length, mid, seenMid)).toMatch(new RegExp(`^${mid} `));
      // Its first byte rewritten (the same inode and length): another log, read from its start.
      writeFileSync(log, `X${text.slice(1)}`);
      expect(header(log, text.length, young, seenYoung)).toMatch(/^0 /);
      expect(header(log, text.length, mid, seenMid)).toMatch(/^0 /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
