// `sentinel start` on an ended run over a real sshd: no sentinel is left running, the run's log is
// digested once by the sentinel's runtime on the target (the digest next to it, 0600), and said so;
// a cockpit attaching afterwards (RunFeed over ssh) reads the digest instead of filtering the log,
// and its dashboard (every series, the last step, the alert history) is the one a full read gives;
// `follow` through it prints the lines a full read prints.
// Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { RunFeed } from '../../src/session/run-feed.js';
import { DIGEST_HEADER_BYTES, digestPathFor, parseDigestHeader } from '../../src/session/run-digest.js';
import type { Target } from '../../src/runs/targets.js';
import { waitFor } from '../harness/wait.js';
import { localTarget } from '../harness/local-run.js';
import { runIdOf, sentinelPidsUnder, sentinelTestCli, startSentinelEnv, type SentinelEnv } from './sentinel-env.js';

const { cli, killAll } = sentinelTestCli(`tok-${process.pid}-Dg7`, 600);

describe('sentinel start on an ended run', { timeout: 180_000 }, () => {
  let env: SentinelEnv;
  let ssh: Transport;

  beforeAll(async () => {
    env = await startSentinelEnv('awrl-sentinel-digest-');
    ssh = await openTransport(env.sshd.alias, { sshConfigFile: env.sshd.sshConfigFile });
  });
  afterAll(async () => {
    killAll();
    await ssh?.close();
    await env?.stop();
  });

  /** The cockpit's feed of the run over ssh, until its last step and its history's note are in. */
  async function dashboard(runId: string, log: string, useDigest: boolean) {
    const target: Target = {
      ...localTarget(env.workdir),
      name: env.sshd.alias,
      host: env.sshd.alias,
      sshConfigFile: env.sshd.sshConfigFile,
    };
    const feed = new RunFeed({
      transport: ssh,
      target,
      summary: {
        id: runId,
        target: target.name,
        state: 'finished',
        step: null,
        totalSteps: null,
        reward: null,
        lastStepAt: null,
      },
      logPath: log,
      backfillThresholdBytes: 1024,
      backfillCache: null,
      useDigest,
      statePollMs: 60_000,
      onChange: () => undefined,
    });
    feed.start();
    try {
      await waitFor(
        () => feed.getView().log.some((l) => l.text.startsWith('history:') && l.text.includes('backfilled')),
        {
          timeoutMs: 30_000,
          what: 'the history read',
        },
      );
      await waitFor(() => feed.trainerLinesOffset === statSync(log).size, { timeoutMs: 30_000, what: 'the log read' });
      const store = feed.store;
      const view = feed.getView();
      return {
        fromDigest: feed.fromDigest,
        keys: store.keys().sort(),
        series: Object.fromEntries(store.keys().map((k) => [k, store.series(k)])),
        last: store.lastStepEvent,
        alertHistory: view.alertHistory?.map((a) => [a.alert.id, a.alert.title]),
      };
    } finally {
      feed.close();
    }
  }

  it('digests the log once and stops; an attach reads the digest and shows a full read’s dashboard', async () => {
    const l = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=digest-ended',
      '--no-sentinel',
    ]);
    expect(l.code, l.stderr).toBe(0);
    const runId = runIdOf(l.stdout);
    await waitFor(
      async () => {
        const r = await cli(['runs', runId, ...env.target(), '--json']);
        return (JSON.parse(r.stdout) as Array<{ state: string }>)[0]?.state === 'finished';
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'the run to finish' },
    );
    const log = join(env.runDir(runId), 'stdout.log');
    const size = statSync(log).size;

    const s = await cli(['sentinel', 'start', runId, ...env.target(), '--json']);
    expect(s.code, s.stderr).toBe(0);
    const said = JSON.parse(s.stdout) as { ended: string; digest: string; offset: number; updated: boolean };
    expect(said).toMatchObject({ ended: 'finished', digest: digestPathFor(log), offset: size, updated: true });
    const human = await cli(['sentinel', 'start', runId, ...env.target()]);
    expect(human.stdout).toContain(`${runId} has already ended (finished): no sentinel to watch it; its digest`);
    expect(sentinelPidsUnder(env.workdir)).toEqual([]);
    const header = parseDigestHeader(readFileSync(digestPathFor(log)).subarray(0, DIGEST_HEADER_BYTES));
    expect(header?.offset).toBe(size);
    expect(statSync(digestPathFor(log)).mode & 0o777).toBe(0o600);
    const viaDigest = await dashboard(runId, log, true);
    const full = await dashboard(runId, log, false);
    expect(viaDigest.fromDigest).toEqual({ offset: size, gzBytes: header!.gzBytes });
    expect(full.fromDigest).toBeNull();
    expect(viaDigest.last?.globalStep).toBeGreaterThan(0);
    expect(viaDigest.keys.length).toBeGreaterThan(5);
    expect({ ...viaDigest, fromDigest: null }).toEqual(full);

    // `follow` through the digest prints the lines a full read prints (follow-digest.ts).
    const followed = await cli(['follow', runId, ...env.target()]);
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout).toMatch(/^watch {4}history: [\d.]+ MiB of log backfilled/m);
    renameSync(digestPathFor(log), `${digestPathFor(log)}.off`);
    const whole = await cli(['follow', runId, ...env.target()]);
    expect(whole.stdout).not.toMatch(/^watch {4}history:/m);
    const events = (out: string) => out.split('\n').filter((l) => !/^(watch|state) {2,}/.test(l));
    expect(events(followed.stdout).filter((l) => l.startsWith('step ')).length).toBeGreaterThan(5);
    expect(events(followed.stdout)).toEqual(events(whole.stdout));
  });
});
