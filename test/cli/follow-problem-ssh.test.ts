// `follow RUN --json` over a real sshd whose sessions cannot read the run's log (they run without the
// capabilities that let root read anything, as an ordinary ssh user's would): a script reading
// stdout gets `{"type":"follow-problem"}` naming the ssh target, the path, the remote error and what
// to do, then `{"type":"follow-problem-cleared"}` before the events once the log is readable; the
// human text goes to stderr. The run is launched through a second, ordinary sshd (the simulator).
// Needs dist/ built.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sentinelCli } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';

const SECRET = `follow-problem-ssh-sentinel-${process.pid}-Vb2`;
const { start, killAll } = sentinelCli(SECRET);

describe('follow --json over ssh: a log the ssh user cannot read', { timeout: 150_000 }, () => {
  let env: SimOverSshd;
  let unprivileged: SshdHandle;

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-follow-problem-ssh-');
    unprivileged = await startSshd({
      extraConfig: [
        'ForceCommand exec setpriv --bounding-set=-dac_override,-dac_read_search -- /bin/bash -c "$SSH_ORIGINAL_COMMAND"',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    killAll();
    await unprivileged?.stop();
    await env?.stop();
  });

  it('prints follow-problem (ssh target, path, error, advice) and follow-problem-cleared on stdout, then every event', async () => {
    const l = start([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=unreadable-ssh',
    ]);
    expect(await l.done, (l.stdout + l.stderr).slice(-600)).toBe(0);
    const runId = /^run\s+(\S+)/m.exec(l.stdout)![1];
    const log = join(env.workdir, '.awrl', 'runs', runId, 'stdout.log');
    await waitFor(() => /Training completes/.test(readFileSync(log, 'utf8')), {
      timeoutMs: 60_000,
      what: 'the instant run to finish',
    });
    chmodSync(log, 0o000);
    try {
      const f = start([
        'follow',
        runId,
        '--target',
        unprivileged.alias,
        '-F',
        unprivileged.sshConfigFile,
        '--workdir',
        env.workdir,
        '--json',
      ]);
      await waitFor(() => f.stdout.includes('"type":"follow-problem"'), {
        timeoutMs: 40_000,
        what: 'the follow-problem line',
      });
      chmodSync(log, 0o644);
      expect(await f.done, f.stderr).toBe(0);
      const lines = f.stdout
        .trimEnd()
        .split('\n')
        .map((x) => JSON.parse(x) as Record<string, unknown>);
      const problems = lines.filter((x) => x.type === 'follow-problem');
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ target: unprivileged.alias, path: log, retrying: true });
      expect(problems[0].error).toMatch(/Permission denied/);
      expect(problems[0].advice).toContain(`ssh user on ${unprivileged.alias}`);
      const cleared = lines.findIndex((x) => x.type === 'follow-problem-cleared');
      expect(lines[cleared]).toEqual({ type: 'follow-problem-cleared', target: unprivileged.alias, path: log });
      const steps = lines.filter((x) => x.type === 'step');
      expect(lines.indexOf(problems[0])).toBeLessThan(cleared);
      expect(cleared).toBeLessThan(lines.indexOf(steps[0]));
      expect(steps.map((s) => s.globalStep)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(f.stderr).toMatch(/^follow\s+cannot follow .*Permission denied.*\(still retrying\)$/m);
      expect(f.stdout + f.stderr).not.toContain(SECRET);
    } finally {
      chmodSync(log, 0o644);
    }
  });
});
