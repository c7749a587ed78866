// The pre-flight probe over a real sshd when a step hangs, run as the user runs it (the built CLI):
// a setup line that never returns (a `conda activate` on a stuck NFS) is stopped after the step
// limit and named; a probe whose Python hangs is ended on the target by Ctrl-C; a `--launch
// --skip-preflight` whose setup line hangs ends with the reason instead of waiting forever. Each
// hanging command writes its own /proc stat line: what is checked afterwards is that PID and every
// process of its session (the probe's or the script's, as sshd started it), never a name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';
import { startCli, type CliProcess } from '../runs/cli-process.js';
import { CONFIG, makeWorld, type World } from './world.js';

let sshd: SshdHandle;
let world: World;
const started: CliProcess[] = [];

beforeAll(async () => {
  sshd = await startSshd();
  world = makeWorld();
});

afterAll(async () => {
  for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await sshd?.stop();
  world?.remove();
});

/** A shell line that records its process's /proc stat line in `file`, then hangs `seconds`. */
const hang = (file: string, seconds: string) => `sh -c 'cat /proc/$$/stat > ${file}; exec sleep ${seconds}'`;

/** PID and session of the process whose stat line is in `file`. */
function recorded(file: string): { pid: number; sid: number } {
  const s = readFileSync(file, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { pid: Number(s.split(' ')[0]), sid: Number(f[3]) };
}

/** Processes (PIDs) still in session `sid`. */
function inSession(sid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const s = readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      if (Number(f[3]) === sid && f[0] !== 'Z') out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function cli(args: string[]): CliProcess {
  const p = startCli(args, { CPU_CLUSTER_TOKEN: 'probe-limit-token' });
  started.push(p);
  return p;
}

const target = (setup: string, extra: string[] = []) => [
  '--target',
  sshd.alias,
  '-F',
  sshd.sshConfigFile,
  '--workdir',
  world.workdir,
  '--setup',
  setup,
  ...extra,
];

describe('the pre-flight probe when a step hangs', () => {
  it('a setup line that never returns: "did not finish in 2 s", exit 2, nothing of it left on the target', async () => {
    const rec = join(world.dir, 'setup-hang.stat');
    const t0 = Date.now();
    const p = cli([
      'preflight',
      ...target(`${world.setup}; ${hang(rec, '37.25')}`, ['--setup-timeout', '2']),
      '--config',
      CONFIG,
      ...world.overrides,
    ]);
    const code = await p.done;
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(code, p.stderr).toBe(2);
    expect(p.stdout + p.stderr).toMatch(/the setup line did not finish in 2 s \(stopped\)/);
    // The other checks ran (the checkout is there): the probe went on without the setup line.
    expect(p.stdout + p.stderr).toMatch(/checkout/);
    const { pid, sid } = recorded(rec);
    await waitFor(() => inSession(sid).length === 0, { timeoutMs: 10_000, what: `session ${sid} (pid ${pid}) gone` });
  }, 60_000);

  it("Ctrl-C of preflight while its Python hangs ends the probe's session on the target (exit 130)", async () => {
    const rec = join(world.dir, 'python-hang.stat');
    const python = join(world.dir, 'hang-python');
    writeFileSync(python, `#!/bin/sh\n${hang(rec, '41.5')}\n`);
    chmodSync(python, 0o755);
    const p = cli(['preflight', ...target(world.setup, ['--python', python]), '--config', CONFIG, ...world.overrides]);
    await waitFor(() => existsSync(rec) && readFileSync(rec, 'utf8').length > 0, {
      timeoutMs: 30_000,
      what: 'the hanging python',
    });
    const { pid, sid } = recorded(rec);
    expect(inSession(sid)).toContain(pid);
    p.child.kill('SIGINT');
    const code = await p.done;
    expect(code, p.stderr).toBe(130);
    expect(p.stderr).toMatch(/preflight interrupted: the probe on \S+ was ended/);
    // Ended by the cancel, long before the step limit (60 s) would have.
    await waitFor(() => inSession(sid).length === 0, { timeoutMs: 10_000, what: `session ${sid} (pid ${pid}) gone` });
  }, 60_000);

  it("a signal during --launch's pre-flight ends the probe's session on the target; nothing is started", async () => {
    const rec = join(world.dir, 'launch-python-hang.stat');
    const python = join(world.dir, 'hang-python-launch');
    writeFileSync(python, `#!/bin/sh\n${hang(rec, '42.25')}\n`);
    chmodSync(python, 0o755);
    const p = cli(['--launch', ...target(world.setup, ['--python', python]), '--config', CONFIG, ...world.overrides]);
    await waitFor(() => existsSync(rec) && readFileSync(rec, 'utf8').length > 0, {
      timeoutMs: 30_000,
      what: 'the hanging python',
    });
    const { pid, sid } = recorded(rec);
    p.child.kill('SIGTERM');
    const code = await p.done;
    expect(code, p.stderr).toBe(143);
    expect(p.stderr).toMatch(/launch cancelled: nothing was started on \S+/);
    // The exit waited for the probe's end on the target (a killed process may take a moment to go).
    await waitFor(() => inSession(sid).length === 0, { timeoutMs: 3000, what: `session ${sid} (pid ${pid}) gone` });
    expect(
      existsSync(join(world.workdir, '.awrl', 'runs')) ? readdirSync(join(world.workdir, '.awrl', 'runs')) : [],
    ).toEqual([]);
  }, 60_000);

  it("--launch --skip-preflight whose setup line hangs in the twin check's list: the reason, nothing started", async () => {
    // A Slurm run of this checkout: listing runs (the twin check) asks squeue, after the setup line.
    const old = join(world.workdir, '.awrl', 'runs', 'old-20260101-000000-abcd');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'run.json'), '{"runId":"old-20260101-000000-abcd","backend":"slurm"}\n');
    const rec = join(world.dir, 'launch-hang.stat');
    // The pre-flight's own setup check is bounded too; the list's setup line hangs first.
    const t0 = Date.now();
    const p = cli([
      '--launch',
      ...target(`${world.setup}; ${hang(rec, '39.75')}`, ['--setup-timeout', '2']),
      '--skip-preflight',
      '--config',
      CONFIG,
      ...world.overrides,
    ]);
    const code = await p.done;
    const out = p.stdout + p.stderr;
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(code, out).toBe(1);
    expect(p.stderr, out).toMatch(/the setup line did not finish in 2 s \(stopped\)/);
    expect(p.stderr).not.toMatch(/\n\s+at /);
    const { pid, sid } = recorded(rec);
    await waitFor(() => inSession(sid).length === 0, { timeoutMs: 10_000, what: `session ${sid} (pid ${pid}) gone` });
    // Nothing was started: the old run is the only run directory.
    expect(readdirSync(join(world.workdir, '.awrl', 'runs'))).toEqual(['old-20260101-000000-abcd']);
  }, 60_000);
});
