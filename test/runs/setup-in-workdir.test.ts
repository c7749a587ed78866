// The target's setup line runs in the workdir wherever a remote script runs it (sbatch, squeue,
// scancel, the GPU poll, the runs list), as it does for a direct start and pre-flight: checked with
// real bash for what a user writes (`. ./env.sh`, a trailing comment, a failing line).
import { describe, expect, it, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setupInWorkdir } from '../../src/runs/index.js';
import { pidAlive, waitFor } from '../harness/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'awrl-setup-'));
const workdir = join(dir, 'my checkout');
const elsewhere = join(dir, 'elsewhere');
mkdirSync(workdir);
mkdirSync(elsewhere);
writeFileSync(join(workdir, 'env.sh'), 'export AWRL_SETUP_MARK=from-env-sh\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Like the remote scripts: `eval "$setup"` in the script's own directory, then more commands. */
function run(setup: string): { out: string; code: number | null } {
  const script = 'cd "$2" && eval "$1"; rc=$?; printf "%s|%s|%s" "$rc" "$PWD" "${AWRL_SETUP_MARK:-}"';
  const r = spawnSync('bash', ['-c', script, 'awrl-test', setupInWorkdir({ setup, workdir }), elsewhere], {
    encoding: 'utf8',
  });
  return { out: r.stdout, code: r.status };
}

describe('setupInWorkdir', () => {
  it("a relative `. ./env.sh` reads the workdir's file; the script stays where it was", () => {
    expect(run('. ./env.sh').out).toBe(`0|${elsewhere}|from-env-sh`);
  });

  it("a trailing comment does not swallow the return to the script's directory", () => {
    expect(run('. ./env.sh # load the env').out).toBe(`0|${elsewhere}|from-env-sh`);
  });

  it("the setup line's failure is the status the script sees", () => {
    expect(run('false').out).toBe(`1|${elsewhere}|`);
    expect(run('. ./no-such-file.sh').out).toMatch(
      new RegExp(`^1\\|${elsewhere.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\|$`),
    );
  });

  it('a setup line that hangs ends the script after the limit, says so, and leaves nothing running', async () => {
    const pidFile = join(dir, 'hang.pid');
    // `setsid`: the script leads its process group, as every remote script does under sshd.
    const script = 'eval "$1"; echo "not reached"';
    const started = Date.now();
    const r = spawnSync(
      'setsid',
      [
        'bash',
        '-c',
        script,
        'awrl-test',
        setupInWorkdir({ setup: `sh -c 'echo $$ > ${pidFile}; exec sleep 43.5'`, workdir, setupTimeoutS: 1 }),
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('not reached');
    expect(r.stderr).toMatch(/^the setup line did not finish in 1 s \(stopped\) on \S+$/m);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    await waitFor(() => !pidAlive(pid), { timeoutMs: 5000, what: 'the hanging setup line ended' });
  });

  it('a setup line that returns in time: its watchdog ends with it (nothing waits for it)', () => {
    const started = Date.now();
    const r = spawnSync(
      'setsid',
      [
        'bash',
        '-c',
        'eval "$1"; wait; echo done',
        'awrl-test',
        setupInWorkdir({ setup: 'true', workdir, setupTimeoutS: 30 }),
      ],
      {
        encoding: 'utf8',
        timeout: 20_000,
      },
    );
    expect(r.stdout).toBe('done\n');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a target without `sleep` on PATH: the watchdog never fires, the script goes on', () => {
    const r = spawnSync(
      '/usr/bin/setsid',
      [
        '/bin/bash',
        '-c',
        'eval "$1"; echo "rc $?"',
        'awrl-test',
        // A setup line that takes a second (builtins only): a watchdog that fired at once would end it.
        setupInWorkdir({ setup: 'while ((SECONDS < 1)); do :; done', workdir }),
      ],
      { encoding: 'utf8', timeout: 20_000, env: { PATH: join(dir, 'no-such-bin') } },
    );
    expect(r.stdout).toBe('rc 0\n');
    expect(r.stderr).not.toMatch(/did not finish/);
  });

  it('no setup line: nothing to run', () => {
    expect(setupInWorkdir({ workdir })).toBe('');
    expect(setupInWorkdir({ setup: '', workdir })).toBe('');
  });
});
