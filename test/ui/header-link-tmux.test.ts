// The dashboard header's wandb URL inside a real tmux: the cockpit asks hyperlinksSupported() of the
// environment tmux gives it (TMUX, TERM_PROGRAM=tmux, TERM_PROGRAM_VERSION), and tmux before 3.4 drops
// or garbles OSC 8, so there the bytes the cockpit writes (tmux pipe-pane -o: the pane's output as
// written) hold the URL as plain text and no OSC 8 at all; from 3.4 they hold the link. The run is the
// simulator's with wandb online (the URL as stats_logger.py makes it; nothing is sent anywhere).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TmuxSession } from '../harness/tmux.js';
import { waitFor } from '../harness/wait.js';
import { BIN, launchSim, withSimEnv, type SimRun } from './sim-run.js';

const tmuxVersion = (): [number, number] => {
  const m = /(\d+)\.(\d+)/.exec(execFileSync('tmux', ['-V'], { encoding: 'utf8' }))!;
  return [Number(m[1]), Number(m[2])];
};

describe('the wandb link in the header inside tmux (built CLI, simulated run)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-link-tmux-'));
  const sessions: TmuxSession[] = [];
  const sims: SimRun[] = [];
  afterAll(async () => {
    for (const t of sessions) await t.kill();
    for (const s of sims) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tmux < 3.4: the URL as plain text, no OSC 8 written; 3.4+: an OSC 8 link to it', async () => {
    // A short experiment name: the whole URL fits the header after the step figures at 200 columns.
    const sim = await withSimEnv({ AWRL_SIM_SPEED: '150', WANDB_API_KEY: 'sim-not-a-key' }, () =>
      launchSim(['stats_logger.wandb.mode=online', 'experiment_name=lk', 'trial_name=t1'], ['WANDB_API_KEY']),
    );
    sims.push(sim);
    const go = join(dir, 'go');
    const out = join(dir, 'pane.bytes');
    // The cockpit starts once the pane's output is piped (a file, not a sleep, says when).
    const cmd = `while [ ! -e ${go} ]; do sleep 0.05; done; node ${BIN} watch ${sim.runId} --target local --workdir ${sim.dir}`;
    const t = await TmuxSession.start({
      command: `sh -c '${cmd}; echo EXITED=$?; exec sleep 600'`,
      width: 200,
      height: 50,
      env: { XDG_CONFIG_HOME: join(dir, 'no-profiles') },
    });
    sessions.push(t);
    await t.tmux('pipe-pane', '-o', '-t', t.name, `cat >> ${out}`);
    await waitFor(() => existsSync(out), { timeoutMs: 10_000, what: 'the pane piped' });
    writeFileSync(go, '');
    const screen = await t.waitForScreen(
      (s) => /│ wandb https:\/\/\S+\/runs\/lk_t1_\S+/.test(s),
      'the wandb URL in the header',
      60_000,
    );
    const url = /│ wandb (https:\/\/\S+)/.exec(screen)![1];
    await waitFor(() => readFileSync(out, 'latin1').includes(url), { timeoutMs: 10_000, what: 'the URL in the bytes' });
    const bytes = readFileSync(out, 'latin1');
    const [major, minor] = tmuxVersion();
    if (major > 3 || (major === 3 && minor >= 4)) expect(bytes).toContain(`\x1b]8;;${url}\x1b\\`);
    else expect(bytes).not.toContain('\x1b]8;');
    await t.type('q');
    await t.waitForScreen((s) => s.includes('EXITED=0'), 'the cockpit to exit', 30_000);
  }, 120_000);
});
