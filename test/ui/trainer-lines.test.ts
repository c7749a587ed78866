// The trainer-lines ring behind the log pane, on the trainer's real output (run-a's stdout.log and
// merged.log, written by AReaL's own logging and table code): chunks cut anywhere give the same
// lines as the whole file; ANSI codes, CRs and control characters never reach the pane; each stats
// table becomes one line with its real key count; memory stays bounded.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanLine } from '../../src/trainer-log/index.js';
import { PaneLines } from './pane-lines.js';
import { SHARED } from '../harness/fixtures.js';

const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;
const stdoutLog = readFileSync(`${RUN_A}stdout.log`);
const mergedLog = readFileSync(`${RUN_A}merged.log`);
/** Keys per logged step, in log order, from the fixture's expected events. */
const stepKeyCounts = readFileSync(`${RUN_A}expected.jsonl`, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { type: string; stats?: Record<string, unknown> })
  .filter((e) => e.type === 'step')
  .map((e) => Object.keys(e.stats!).length);

function feed(bytes: Buffer, cuts: number[], capacity = 5000): PaneLines {
  const ring = new PaneLines(capacity);
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    ring.push(bytes.subarray(at, c));
    at = c;
  }
  return ring;
}

const texts = (r: PaneLines) => r.view().lines.map((l) => l.text);

describe('trainer lines from the real stdout.log', () => {
  const whole = feed(stdoutLog, []);
  const lines = whole.view().lines;

  it('strips every ANSI code and control character, keeps the text as printed', () => {
    expect(lines.length).toBeGreaterThan(50);
    for (const l of lines) expect(l.text).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(texts(whole)).toContain(
      '(AReaL) 20260525-12:19:55.952 StatsLogger INFO: Epoch 1/10 Step 1/16 Train step 1/160 done.',
    );
    expect(texts(whole)).toContain(
      '(RayRPCServer pid=48213, ip=10.0.0.9) TaskMonitor dashboard running at http://0.0.0.0:5003',
    );
  });

  it('collapses each stats table to one line with its real number of keys, and shows no table line', () => {
    const tables = lines.filter((l) => l.kind === 'table').map((l) => l.text);
    expect(tables).toEqual(stepKeyCounts.map((n) => `  [stats table: ${n} keys]`));
    for (const l of lines) expect(l.text).not.toMatch(/^[╒│├╘]/);
  });

  it('colours come from the level: ERROR records and their traceback red, WARNING yellow, the rest plain', () => {
    const error = lines.findIndex((l) => l.text.includes('RLTrainer ERROR: Training step failed'));
    expect(lines[error].level).toBe('error');
    expect(lines[error + 1].text).toBe('Traceback (most recent call last):');
    expect(lines[error + 1].level).toBe('error');
    expect(lines.find((l) => l.text.startsWith('RuntimeError: [Rank 3] Watchdog'))?.level).toBe('error');
    // The next record header ends the error.
    expect(lines.slice(error).find((l) => l.text.includes('WebGymTrain INFO'))?.level).toBe('info');
    expect(lines.find((l) => l.text.includes('Recover WARNING: Resume info not found'))?.level).toBe('warning');
    // A Ray-forwarded worker warning (prefix, then the AReaL header).
    expect(lines.find((l) => l.text.includes('[EPISODE_TIMEOUT]'))?.level).toBe('warning');
    expect(lines.find((l) => l.text.includes('Train step 1/160 done.'))?.level).toBe('info');
  });

  it('chunks cut anywhere (inside UTF-8 box characters, inside ANSI codes, byte by byte) give the same lines', () => {
    const expected = texts(whole);
    // Cuts inside the 3-byte box characters and inside the first ESC[...m of the file.
    const esc = stdoutLog.indexOf('\x1b[1;38;2');
    const box = stdoutLog.indexOf('╒');
    expect(texts(feed(stdoutLog, [esc + 1, esc + 4, box + 1, box + 2, box + 4]))).toEqual(expected);
    const head = stdoutLog.subarray(0, 60_000);
    const oneByOne = new PaneLines(5000);
    for (let i = 0; i < head.length; i++) oneByOne.push(head.subarray(i, i + 1));
    expect(texts(oneByOne)).toEqual(texts(feed(head, [])));
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: stdoutLog.length - 1 }), { maxLength: 40 }), (cuts) => {
        expect(
          texts(
            feed(
              stdoutLog,
              [...cuts].sort((a, b) => a - b),
            ),
          ),
        ).toEqual(expected);
      }),
      { numRuns: 30 },
    );
  });

  it('merged.log: the [main] prefix, tables unprefixed after it, the same key counts', () => {
    const merged = feed(mergedLog, []).view().lines;
    expect(merged.filter((l) => l.kind === 'table').map((l) => l.text)).toEqual(
      stepKeyCounts.map((n) => `  [stats table: ${n} keys]`),
    );
    expect(merged.find((l) => l.text.includes('RLTrainer ERROR'))?.text).toMatch(/^\[main\] {4}\(AReaL\) \d{8}-/);
  });
});

describe('prefixed tables and tracebacks', () => {
  const table = stdoutLog
    .subarray(stdoutLog.indexOf('╒'), stdoutLog.indexOf('\n', stdoutLog.indexOf('╘')) + 1)
    .toString('utf8');
  const prefixEvery = (text: string, prefix: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => prefix + l + '\n')
      .join('');

  it('a worker table prefixed on every line ([actor]   ) and a Ray-forwarded one collapse, with the prefix', () => {
    const text = prefixEvery(table, '[actor]   ') + prefixEvery(table, '(RayRPCServer pid=7, ip=10.0.0.2) ');
    const lines = texts(feed(Buffer.from(text), []));
    expect(lines).toEqual([
      `[actor]   [stats table: ${stepKeyCounts[0]} keys]`,
      `(RayRPCServer pid=7, ip=10.0.0.2)   [stats table: ${stepKeyCounts[0]} keys]`,
    ]);
  });

  it('a table interleaved with another source stays one table; a table cut short says so', () => {
    const rows = table.split('\n').filter(Boolean);
    const mixed = [...rows.slice(0, 5), '(RayRPCServer pid=7, ip=10.0.0.2) hello', ...rows.slice(5)].join('\n') + '\n';
    expect(texts(feed(Buffer.from(mixed), []))).toEqual([
      '(RayRPCServer pid=7, ip=10.0.0.2) hello',
      `  [stats table: ${stepKeyCounts[0]} keys]`,
    ]);
    const cut = rows.slice(0, 5).join('\n') + '\nnext line\n';
    expect(texts(feed(Buffer.from(cut), []))).toEqual(['  [stats table, cut: 8 keys seen]', 'next line']);
    // Reading that starts inside a table (after a backfill) cannot count its keys.
    const ring = new PaneLines();
    ring.startMidLog(true);
    ring.push(Buffer.from(rows.slice(3).join('\n') + '\n'));
    expect(texts(ring)).toEqual([expect.stringMatching(/^ {2}\[stats table, cut: \d+ keys seen\]$/)]);
    expect(ring.view().startsMidLog).toBe(true);
  });
});

describe('cleaning', () => {
  it('invalid UTF-8 is shown as U+FFFD, valid multi-byte text survives', () => {
    const ring = new PaneLines();
    ring.push(Buffer.from([0x61, 0xff, 0x62, 0xe2, 0x94, 0x0a])); // a, invalid, b, a cut 3-byte char
    ring.push(Buffer.from('ü → 名\n'));
    expect(texts(ring)).toEqual(['a\ufffdb\ufffd', 'ü → 名']);
  });
  it('CR: CRLF endings dropped; a progress bar shows its last state as a terminal would', () => {
    expect(cleanLine('done\r')).toBe('done');
    expect(cleanLine(' 10%|#   |\r 50%|#####|\r100%|########|')).toBe('100%|########|');
    expect(cleanLine('abcdef\rxy')).toBe('xycdef');
  });
  it('ANSI: SGR, cursor codes, OSC titles, a code cut by the end of the line; tabs expanded', () => {
    expect(cleanLine('\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m \x1b[31mred\x1b[0m')).toBe('(AReaL) red');
    expect(cleanLine('\x1b[2K\x1b[1Gx\x1b]0;title\x07y\x1b[1;3')).toBe('xy');
    expect(cleanLine('a\tb')).toBe('a       b');
    expect(cleanLine('bell\x07 and \x00nul')).toBe('bell and nul');
    // tput sgr0's `ESC ( B`: an escape with an intermediate byte goes whole (the parser's stripper too).
    expect(cleanLine('\x1b(B\x1b[mplain')).toBe('plain');
  });
  it('a huge line without a newline keeps its head (memory bounded) and is marked cut', () => {
    const ring = new PaneLines();
    for (let i = 0; i < 200; i++) ring.push(Buffer.alloc(64 * 1024, 0x78));
    ring.push(Buffer.from('tail\nnext\n'));
    const [big, next] = ring.view().lines;
    expect(big.text.length).toBeLessThanOrEqual(2000);
    expect(big.text.endsWith('…')).toBe(true);
    expect(next.text).toBe('next');
    // A CR progress bar redrawn for hours keeps only its latest state.
    const bar = new PaneLines();
    for (let i = 0; i <= 100_000; i++) bar.push(Buffer.from(`\rstep ${i}`));
    bar.push(Buffer.from('\n'));
    expect(texts(bar)).toEqual(['step 100000']);
  });
});

describe('the ring', () => {
  it('keeps the last N lines, counts the dropped ones, and gives the same view object until a change', () => {
    const ring = new PaneLines(500);
    for (let i = 0; i < 6; i++) ring.push(stdoutLog);
    const v = ring.view();
    expect(v.lines).toHaveLength(500);
    expect(v.dropped).toBeGreaterThan(0);
    expect(v.lines.at(-1)!.text).toBe(feed(stdoutLog, []).view().lines.at(-1)!.text);
    expect(v.lines.every((l, i) => i === 0 || l.seq === v.lines[i - 1].seq + 1)).toBe(true);
    expect(ring.view()).toBe(v);
    ring.push(Buffer.from('one more\n'));
    expect(ring.view()).not.toBe(v);
  });
  it('reset drops the partial line and says so', () => {
    const ring = new PaneLines();
    ring.push(Buffer.from('complete\npartial'));
    ring.reset('truncated');
    ring.push(Buffer.from('fresh\n'));
    expect(texts(ring)).toEqual(['complete', '— log truncated: reading it again from the start —', 'fresh']);
    // A log appearing before anything was read: no note.
    const quiet = new PaneLines();
    quiet.push(Buffer.from('half'));
    quiet.reset(null);
    quiet.push(Buffer.from('first\n'));
    expect(texts(quiet)).toEqual(['first']);
  });
});

describe('levels of other record heads on the same stdout', () => {
  const levels = (text: string) =>
    feed(Buffer.from(text), [])
      .view()
      .lines.map((l) => `${l.level} ${l.text}`);
  it('Ray, Python, glog/c10d and Python warnings; a traceback after them is red until the next head', () => {
    expect(
      levels(
        [
          '(raylet, ip=10.0.0.9) 2026-05-25 12:00:00,000\tERROR worker.py:1353 -- Failed to start the dashboard',
          '2026-05-25 12:00:01,000\tINFO worker.py:1 -- fine, no ERROR here that counts',
          '2026-05-25 12:00:02,000 - webgym.env - WARNING - slow page',
          '[2026-05-25 12:00:03 TP0] Prefill batch. ERROR counts here only as text',
          '[rank3]:[E1120 10:00:00.000000000 ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout',
          '[W ProcessGroupNCCL.cpp:1234] Warning: something',
          'ERROR:root:basic config error',
          '/opt/webgym/x.py:12: UserWarning: deprecated',
          '[rollout] Traceback (most recent call last):',
          '[rollout]   File "x.py", line 1, in <module>',
          '[rollout] ValueError: bad',
          'plain line',
          'ERROR:root:again',
          '  an indented continuation',
          '[rollout] (AReaL) 20260525-12:00:00.000 WebGymWorkflow INFO: recovered',
          '[rollout] after the info head',
        ].join('\n') + '\n',
      ),
    ).toEqual([
      'error (raylet, ip=10.0.0.9) 2026-05-25 12:00:00,000   ERROR worker.py:1353 -- Failed to start the dashboard',
      'info 2026-05-25 12:00:01,000 INFO worker.py:1 -- fine, no ERROR here that counts',
      'warning 2026-05-25 12:00:02,000 - webgym.env - WARNING - slow page',
      'info [2026-05-25 12:00:03 TP0] Prefill batch. ERROR counts here only as text',
      'error [rank3]:[E1120 10:00:00.000000000 ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout',
      'warning [W ProcessGroupNCCL.cpp:1234] Warning: something',
      'error ERROR:root:basic config error',
      'warning /opt/webgym/x.py:12: UserWarning: deprecated',
      'error [rollout] Traceback (most recent call last):',
      'error [rollout]   File "x.py", line 1, in <module>',
      'error [rollout] ValueError: bad',
      // Another source: the controller's last head was the Python warning (warnings do not carry over).
      'info plain line',
      'error ERROR:root:again',
      'error   an indented continuation',
      'info [rollout] (AReaL) 20260525-12:00:00.000 WebGymWorkflow INFO: recovered',
      'info [rollout] after the info head',
    ]);
  });
});
