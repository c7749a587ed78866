// Issue #17 §1 on the local target (the demo's path): a terminal's Ctrl-C reaches the launcher's
// whole process group. Once the start script was sent, it must not reach the script too: the
// launch finishes starting, says so, and the run is whole and running.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { ROOT } from './cli-process.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const BIN = join(ROOT, 'bin', 'awrl-tui.js');

describe("Ctrl-C to the launcher's process group while the local start script runs", () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-interrupt-local-'));
  const groups: number[] = [];

  afterAll(() => {
    for (const g of groups) if (pidAlive(g)) process.kill(-g, 'SIGKILL');
    rmSync(workdir, { recursive: true, force: true });
  });

  it('the start finishes: "run RUN started", one whole running run', async () => {
    const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
    writeWebgymTasks(sim.trainDataset, 256);
    const hold = join(workdir, 'hold');
    writeFileSync(hold, '');
    const args = ['--launch', '--target', 'local', '--workdir', workdir, '--config', sim.config!, '++trial_name=ctrlc'];
    // detached: the launcher leads a group of its own, as a shell's foreground job does.
    const child = spawn(process.execPath, [BIN, ...args], {
      env: {
        ...process.env,
        CPU_CLUSTER_TOKEN: 'local-interrupt',
        XDG_CONFIG_HOME: join(tmpdir(), 'awrl-no-profiles'),
        AWRL_TEST_LAUNCH_HOLD: `starting:${hold}`,
        PATH: `${workdir}/bin:${process.env.PATH}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    groups.push(child.pid!);
    let stderr = '';
    child.stderr!.on('data', (b) => (stderr += b));
    child.stdout!.on('data', (b) => (stderr += b));
    const done = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    await waitFor(() => existsSync(`${hold}.reached`) || child.exitCode !== null, {
      timeoutMs: 90_000,
      what: 'the start script to reach its start step',
    });
    expect(child.exitCode, stderr).toBeNull();
    process.kill(-child.pid!, 'SIGINT'); // what a terminal's Ctrl-C does
    await waitFor(() => stderr.includes('finishing that first'), { what: 'the note', timeoutMs: 30_000 });
    rmSync(hold);
    expect(await done, stderr).toBe(0);
    const runsDir = join(workdir, '.awrl', 'runs');
    const dirs = readdirSync(runsDir).filter((d) => d.startsWith('ctrlc-'));
    expect(dirs).toHaveLength(1);
    expect(stderr).toContain(`run ${dirs[0]} started (Ctrl-C again to leave it running)`);
    const record = JSON.parse(readFileSync(join(runsDir, dirs[0], 'run.json'), 'utf8'));
    expect(record.attempts).toHaveLength(1);
    const pid = Number(readFileSync(join(runsDir, dirs[0], 'job.pid'), 'utf8'));
    groups.push(pid);
    expect(pidAlive(pid)).toBe(true);
  }, 150_000);
});
