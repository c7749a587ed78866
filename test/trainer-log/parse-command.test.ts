// `awrl-tui parse` end to end through the built CLI (npm test builds dist first).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdtempSync, writeFileSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseLogBytes, eventToJsonLine } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const DIR = `${SHARED}fixtures/areal-logs/run-a/`;
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, 'parse', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });

describe('awrl-tui parse', () => {
  it.each(['merged.log', 'stdout.log'])(
    '--json prints one event per line, type first, same as the library (%s)',
    (file) => {
      const r = cli('--json', DIR + file);
      expect(r.status).toBe(0);
      const expected = parseLogBytes(readFileSync(DIR + file)).map(eventToJsonLine);
      expect(r.stdout.trimEnd().split('\n')).toEqual(expected);
      // UTF-8 survives (stdout.log's worker warnings hold an em dash).
      if (file === 'stdout.log') expect(r.stdout).toContain('45min — terminating episode');
    },
  );

  it('reads several files in order as one stream (a record cut between files is joined)', () => {
    const whole = readFileSync(DIR + 'main.log');
    const dir = mkdtempSync(join(tmpdir(), 'awrl-parse-'));
    try {
      const cut = whole.indexOf('│ ppo_actor/advantages/max') + 10; // inside the first table
      writeFileSync(join(dir, 'a.log'), whole.subarray(0, cut));
      writeFileSync(join(dir, 'b.log'), whole.subarray(cut));
      const r = cli(join(dir, 'a.log'), join(dir, 'b.log'), '--json');
      expect(r.stdout).toBe(cli('--json', DIR + 'main.log').stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a file of many chunks (read ahead) with the same events as the library, and stops quietly under head', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-parse-'));
    try {
      // run-a's stdout.log again and again: > 3 MiB, several 1 MiB reads, cut inside records.
      const one = readFileSync(DIR + 'stdout.log');
      const big = Buffer.concat(Array.from({ length: Math.ceil((3.2 * 2 ** 20) / one.length) }, () => one));
      const f = join(dir, 'big.log');
      writeFileSync(f, big);
      const r = cli('--json', f);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(parseLogBytes(big).map(eventToJsonLine).join('\n') + '\n');
      const summary = cli(f);
      expect(summary.stdout).toMatch(
        new RegExp(`steps: ${parseLogBytes(big).filter((e) => e.type === 'step').length} step records`),
      );
      const head = spawnSync(
        '/bin/sh',
        ['-c', '"$0" "$1" parse --json "$2" | head -c 100 > /dev/null; echo "rc=$?"', process.execPath, BIN, f],
        { encoding: 'utf8' },
      );
      expect(head.stdout.trim()).toBe('rc=0');
      expect(head.stderr).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 naming the file when a read fails part-way (not a stack trace)', () => {
    // /proc/self/mem opens fine and fails on its first read (EIO).
    for (const args of [['--json', '/proc/self/mem'], ['/proc/self/mem']]) {
      const r = cli(DIR + 'main.log', ...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^awrl-tui: cannot read \/proc\/self\/mem: .*\n$/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('with --json, a failure is also one JSON error line on stdout (after any events already written)', () => {
    const missing = cli('--json', '/nonexistent/x.log');
    expect(missing.status).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({
      type: 'cli-error',
      exit: 2,
      code: 'file-unreadable',
      message: 'cannot read /nonexistent/x.log: no such file',
      hint: '',
    });
    const partWay = cli('--json', DIR + 'main.log', '/proc/self/mem');
    const lines = partWay.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ type: 'cli-error', exit: 2, code: 'file-unreadable' });
    expect(lines.slice(0, -1).some((e) => e.type === 'step')).toBe(true);
  });

  it('summarises steps, resumes, reward, step time and errors', () => {
    const r = cli(DIR + 'stdout.log');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/steps: 12 step records, last train step 12\/160/);
    expect(r.stdout).toMatch(/resumes: 1/);
    expect(r.stdout).toMatch(/reward: last [\d.]+, mean of last 10 steps [\d.]+/);
    expect(r.stdout).toMatch(/step time: mean \d+ min \d+ s over 10 steps/);
    expect(r.stdout).toMatch(/errors: 1\n .*nccl-timeout.*Training step failed/);
  });

  it('exits 2 with one clear line for a missing or unreadable file', () => {
    const missing = cli(DIR + 'main.log', '/nonexistent/x.log');
    expect(missing.status).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe('awrl-tui: cannot read /nonexistent/x.log: no such file\n');
    const dir = mkdtempSync(join(tmpdir(), 'awrl-parse-'));
    try {
      const f = join(dir, 'locked.log');
      writeFileSync(f, 'x');
      chmodSync(f, 0o000);
      const r = cli(f);
      if (process.getuid?.() !== 0) {
        expect(r.status).toBe(2);
        expect(r.stderr).toMatch(/cannot read .*locked\.log: permission denied/);
      }
      const d = cli(dir);
      expect(d.status).toBe(2);
      expect(d.stderr).toMatch(/is a directory/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(cli().status).toBe(2);
  });

  it('exits 2 with one line naming the file when a non-empty input holds no trainer record', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-parse-'));
    try {
      const junk = join(dir, 'junk.bin');
      writeFileSync(junk, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)));
      const old = join(dir, 'wrong.log');
      writeFileSync(old, 'INFO:     Uvicorn running on http://0.0.0.0:8000\nhello\n');
      for (const f of [junk, old]) {
        for (const args of [[f], ['--json', f]]) {
          const r = cli(...args);
          expect(r.status, args.join(' ')).toBe(2);
          const lines = r.stderr.trimEnd().split('\n');
          expect(lines).toHaveLength(1);
          expect(lines[0]).toContain(`${f}: no trainer log record found`);
          expect(lines[0]).toContain('(AReaL) 20260525-12:19:55.952 StatsLogger INFO:');
        }
        expect(cli(f).stdout).toBe('');
      }
      // With a trainer log beside it: the summary is printed, and the wrong file named.
      const both = cli(DIR + 'main.log', old);
      expect(both.status).toBe(2);
      expect(both.stdout).toMatch(/^steps: 12 step records/m);
      expect(both.stderr).toContain(`${old}: no trainer log record found`);
      expect(both.stderr).not.toContain(DIR + 'main.log');
      // An empty file is not a wrong one; a pre-0.5.2 header is a record.
      const empty = join(dir, 'empty.log');
      writeFileSync(empty, '');
      expect(cli(empty).status).toBe(0);
      const pre = join(dir, 'pre.log');
      writeFileSync(pre, '20250101-10:00:00.000 StatsLogger INFO: Training completes! Total time elapsed 1.00.\n');
      const r = cli(pre);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^finished: yes$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a file of tracebacks only (a trainer that died before its first record)', () => {
  const file = new URL('./round3/only-traceback.log', import.meta.url).pathname;

  it('the summary shows its error, and a note says no record was found; exit 0', () => {
    const r = cli(file);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^errors: 1$/m);
    expect(r.stdout).toContain("ModuleNotFoundError: No module named 'webgym_missing_module'");
    expect(r.stderr).toBe(
      `${file}: no trainer log record found, only errors (shown): the trainer may have died before its first record.\n`,
    );
  });

  it('--json writes its error event, with the same note', () => {
    const r = cli('--json', file);
    expect(r.status).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; message: string }),
    ).toEqual([
      expect.objectContaining({
        type: 'error',
        message: "ModuleNotFoundError: No module named 'webgym_missing_module'",
      }),
    ]);
    expect(r.stderr).toContain('no trainer log record found, only errors');
  });
});
