// `--launch --follow` of a run that dies of a CUDA OOM, on the local target (a `sim init` dir): the
// human `alert:` line carried the whole traceback as its detail, so it read
// "alert: [error] oom: Training step failed: Traceback (most recent call last):" and went on for a
// dozen lines. It is one line whose detail is the exception line, as the cockpit's Alerts panel shows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../runs/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'awrl-qa-alert-'));
const workdir = join(dir, 'checkout');
const started: CliProcess[] = [];
afterAll(() => {
  for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('a crashed run followed headless', { timeout: 120_000 }, () => {
  it('each alert is one line: title, the exception line, the advice; the run is failed (exit 1)', async () => {
    const init = startCli(['sim', 'init', workdir], {});
    expect(await init.done, init.stderr).toBe(0);
    const env = {
      PATH: `${workdir}/bin:${process.env.PATH}`,
      CPU_CLUSTER_TOKEN: 'qa-token',
      AWRL_SIM_SPEED: 'instant',
      AWRL_SIM_FAULT: 'oom@3',
    };
    const config = join(workdir, 'configs', 'sim_local.yaml');
    const args = ['--launch', '--target', 'local', '--workdir', workdir, '--config', config, '--follow'];
    const p = startCli([...args, '--forward-env', 'AWRL_SIM_SPEED', '--forward-env', 'AWRL_SIM_FAULT'], env);
    started.push(p);
    expect(await p.done, p.stderr).toBe(1);
    const out = p.stdout + p.stderr;
    const alerts = out.split('\n').filter((l) => l.startsWith('alert: [error] oom:'));
    expect(alerts.length, out).toBeGreaterThan(0);
    for (const a of alerts) {
      expect(a).toContain("RuntimeError: Worker 'actor/3' failed with exit code 1");
      expect(a).toContain('→ Lower actor.mb_spec.max_tokens_per_mb');
      expect(a).not.toContain('Traceback (most recent call last)');
    }
    expect(out).not.toMatch(/^alert: [^\n]*\n {2}File "/m);
    expect(out).toMatch(/state +failed \(exit 1\)/);
  });
});
