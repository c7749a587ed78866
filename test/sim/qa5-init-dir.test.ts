// `awrl-tui sim init DIR` where DIR cannot be made: Node 20's mkdirSync(p, {recursive: true}) spins
// forever under /proc. The built CLI must answer in one line and exit 2; the child is killed by PID
// if it does not end (the test must never hang).
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../harness/wait.js';
import { makeDirs } from '../../src/sim/make-dirs.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const children: ChildProcess[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'awrl-qa5-init-'));

afterAll(() => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null && c.pid) {
      try {
        process.kill(c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  rmSync(tmp, { recursive: true, force: true });
});

/** Runs the built CLI; kills it by PID after `limitMs` (then `code` stays null: the test fails, not hangs). */
async function cli(args: string[], limitMs = 15_000): Promise<{ code: number | null; out: string; err: string }> {
  const c = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(c);
  let out = '';
  let err = '';
  c.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  c.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  let code: number | null = null;
  const done = new Promise<void>((r) =>
    c.on('close', (n) => {
      code = n;
      r();
    }),
  );
  try {
    await waitFor(() => c.exitCode !== null || c.signalCode !== null, { timeoutMs: limitMs });
  } catch {
    if (c.pid) process.kill(c.pid, 'SIGKILL');
  }
  await done;
  return { code, out, err };
}

describe('sim init into a directory that cannot be made', () => {
  it('under /proc: one clear line, exit 2, no hang', async () => {
    const r = await cli(['sim', 'init', '/proc/x/y']);
    expect(r.code).toBe(2);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('/proc/x');
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 30_000);

  it('under a regular file: one clear line naming the file, exit 2', async () => {
    const f = join(tmp, 'plain-file');
    writeFileSync(f, 'x');
    const r = await cli(['sim', 'init', join(f, 'sub')]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(f);
    expect(r.err).toContain('not a directory');
  }, 30_000);

  it('makeDirs creates the missing levels one by one and accepts an existing directory', () => {
    const d = join(tmp, 'a', 'b', 'c');
    makeDirs(d);
    makeDirs(d);
    expect(() => makeDirs(join(tmp, 'a', 'b'))).not.toThrow();
  });
});
