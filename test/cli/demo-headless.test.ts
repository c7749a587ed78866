// `awrl-tui --demo` without a terminal prints progress lines. A fault is no success: the run's end
// state is the last line and the exit code (1 for a failed run). A reader that goes away (`| head`)
// or a Ctrl-C in the demo's first second stops the simulated trainer and removes its checkout
// before the demo exits. Each demo gets its own TMPDIR, so what it leaves behind is seen.
import { describe, expect, it, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, pidAlive } from '../harness/wait.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) {
    for (const p of processesUnder(d)) process.kill(p, 'SIGKILL');
    rmSync(d, { recursive: true, force: true });
  }
});

/** PIDs whose command line or environment names `dir` (the demo's simulated trainer does). */
function processesUnder(dir: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'latin1');
      const env = readFileSync(`/proc/${e}/environ`, 'latin1');
      if ((cmd.includes(dir) || env.includes(dir)) && pidAlive(Number(e))) out.push(Number(e));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

function demo(args: string[]) {
  const tmp = mkdtempSync(join(tmpdir(), 'awrl-demo-test-'));
  dirs.push(tmp);
  const child = spawn(process.execPath, [BIN, '--demo', ...args], {
    env: { ...process.env, TMPDIR: tmp, AWRL_SIM_SPEED: 'instant' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p = { child, tmp, stdout: '', stderr: '', done: Promise.resolve<number | null>(null) };
  child.stdout.on('data', (b) => (p.stdout += b));
  child.stderr.on('data', (b) => (p.stderr += b));
  p.done = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  return p;
}

describe('--demo without a terminal', { timeout: 120_000 }, () => {
  it('--fault oom@3: the run failed, said last, exit 1; nothing left behind', async () => {
    const d = demo(['--fault', 'oom@3', '--sim-speed', 'instant']);
    const code = await d.done;
    expect(d.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(code, d.stdout + d.stderr).toBe(1);
    expect(d.stdout.trim().split('\n').at(-1)).toMatch(/^state {4}failed/);
    expect(readdirSync(d.tmp)).toEqual([]);
  });

  it('| head: the reader gone, the trainer is stopped and the checkout removed; exit 0, no stack trace', async () => {
    // A progress line every few seconds: the next write after the reader left meets the closed pipe.
    const d = demo(['--sim-speed', '150']);
    await waitFor(() => d.stdout.includes('demo run '), { timeoutMs: 60_000, what: 'the first line' });
    const checkout = readdirSync(d.tmp).find((n) => n.startsWith('awrl-demo-'))!;
    await waitFor(() => processesUnder(join(d.tmp, checkout)).length > 0, { timeoutMs: 30_000, what: 'the trainer' });
    d.child.stdout.destroy();
    expect(await d.done).toBe(0);
    expect(d.stderr).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(processesUnder(d.tmp)).toEqual([]);
    expect(readdirSync(d.tmp)).toEqual([]);
  });

  it('Ctrl-C in its first second: exit 130, no trainer left, no checkout left', async () => {
    const d = demo(['--sim-speed', '1']);
    await waitFor(() => readdirSync(d.tmp).some((n) => n.startsWith('awrl-demo-')), {
      timeoutMs: 30_000,
      intervalMs: 10,
      what: 'the demo checkout',
    });
    d.child.kill('SIGINT');
    expect(await d.done).toBe(130);
    await waitFor(() => processesUnder(d.tmp).length === 0, { timeoutMs: 15_000, what: 'no trainer left' });
    expect(readdirSync(d.tmp)).toEqual([]);
  });

  it('out of the box, shows eval rounds and the wandb run (offline: the command that uploads it)', async () => {
    const d = demo(['--sim-speed', 'instant']);
    await waitFor(() => /^eval round 0 done: /m.test(d.stdout), { timeoutMs: 60_000, what: 'the first eval round' });
    d.child.kill('SIGINT');
    expect(await d.done).toBe(130);
    const lines = d.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('eval round 0 done: '))).toMatch(
      /^eval round 0 done: \d+\.\d% \[\d+\.\d%, \d+\.\d%\] of \d+\/\d+ at model step 0 \(round 0\), \d+ failed, \d+ min$/,
    );
    expect(lines.find((l) => l.startsWith('wandb'))).toMatch(
      /^wandb offline: wandb sync \/.*\/wandb\/offline-run-\S+$/,
    );
    await waitFor(() => processesUnder(d.tmp).length === 0, { timeoutMs: 15_000, what: 'no trainer left' });
  });

  it('Ctrl-C while steps print: says the demo stopped its run (no lost connection), exit 130', async () => {
    const d = demo(['--sim-speed', '150']);
    await waitFor(() => /^step 1\//m.test(d.stdout), { timeoutMs: 60_000, what: 'the first step line' });
    d.child.kill('SIGINT');
    expect(await d.done).toBe(130);
    expect(d.stdout).toMatch(/demo stopped \(SIGINT\): the simulated run is stopped and its files removed/);
    expect(d.stdout).not.toMatch(/lost the simulated run/);
    await waitFor(() => processesUnder(d.tmp).length === 0, { timeoutMs: 15_000, what: 'no trainer left' });
    expect(readdirSync(d.tmp)).toEqual([]);
  });
});
