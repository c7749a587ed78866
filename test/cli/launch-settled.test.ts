// `actor.path: models/Qwen3-VL-8B-Instruct` (relative to the workdir) looks like a Hub id to the
// config check, which warns before connecting; pre-flight then finds the directory on the target,
// and --launch says the warning does not apply (instead of leaving the user to wonder).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentinelCli } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';

describe('--launch with a relative actor.path that exists on the target', () => {
  let env: SimOverSshd;
  const { cli } = sentinelCli('sentinel-settled-secret');
  beforeAll(async () => {
    env = await startSimOverSshd('awrl-launch-settled-');
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('warns before connecting, then notes that pre-flight found it; the run launches and finishes', async () => {
    const r = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant'),
      '--config',
      env.config,
      'actor.path=models/Qwen3-VL-8B-Instruct',
      'total_train_epochs=1',
      '++trial_name=settled',
      '--follow',
    ]);
    expect(r.stderr).toMatch(/warning.*actor\.path/);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/note: actor\.path is there on \S+: the warning above \(hub-model-path\) does not apply/);
    expect(r.code).toBe(0);
  });

  it('a Hub id that is not there gets no such note', async () => {
    const r = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant'),
      '--config',
      env.config,
      'actor.path=Qwen/Not-Here-8B',
      'total_train_epochs=1',
      '++trial_name=hub',
      '--follow',
    ]);
    expect(r.stderr).toMatch(/warning.*actor\.path/);
    expect(r.stdout + r.stderr).not.toMatch(/note: actor\.path is there/);
  });
});
