// A target whose PATH has no node: `sentinel start` installs the sentinel's runtime (its modules and
// this machine's Node binary) into ~/.cache/awrl-tui over the SSH connection, checked by MANIFEST
// sums, and the sentinel runs on that Node; a second start installs nothing again. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive, waitFor } from '../harness/wait.js';
import { runIdOf, sentinelTestCli, startSentinelEnv, type SentinelEnv } from './sentinel-env.js';

const { cli, killAll } = sentinelTestCli(`runtime-${process.pid}-Lp2`, 1000);

describe('the sentinel’s runtime on a target without node', { timeout: 180_000 }, () => {
  let env: SentinelEnv;
  beforeAll(async () => {
    env = await startSentinelEnv('awrl-sentinel-nonode-', { without: ['node', 'nodejs'] });
  });
  afterAll(async () => {
    killAll();
    await env?.stop();
  });

  it('installs this machine’s Node and the bundle once, and the sentinel runs on them', async () => {
    const l = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=20'),
      '--config',
      env.config,
      '++trial_name=no-node',
    ]);
    expect(l.code, l.stderr).toBe(0);
    const runId = runIdOf(l.stdout);
    const s = await cli(['sentinel', 'start', runId, ...env.target(), '--json']);
    expect(s.code, s.stderr).toBe(0);
    const started = JSON.parse(s.stdout) as { pid: number; node: string; installed: string[] };
    const cache = join(env.home, '.cache', 'awrl-tui');
    const nodeDir = `node-${process.version}-${process.platform}-${process.arch}`;
    expect(started.node).toBe(join(cache, nodeDir, 'bin', 'node'));
    expect(started.installed).toHaveLength(2);
    expect(started.installed[0]).toBe(nodeDir);
    expect(started.installed[1]).toMatch(/^\d+\.\d+\.\d+-[0-9a-f]{12}$/);
    expect(readlinkSync(`/proc/${started.pid}/exe`)).toBe(started.node);
    for (const name of started.installed) expect(existsSync(join(cache, name, '.complete'))).toBe(true);
    // Nothing half-done left beside them.
    expect(readdirSync(cache).sort()).toEqual([...started.installed].sort());

    const stop = await cli(['sentinel', 'stop', runId, ...env.target()]);
    expect(stop.code, stop.stderr).toBe(0);
    await waitFor(() => !pidAlive(started.pid), { what: 'the sentinel to stop' });
    const again = await cli(['sentinel', 'start', runId, ...env.target(), '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { installed: string[] }).installed).toEqual([]);
    await cli(['stop', runId, ...env.target(), '--grace', '2']);
  });
});

describe('a sentinel that cannot start', { timeout: 180_000 }, () => {
  let env: SentinelEnv;
  beforeAll(async () => {
    env = await startSentinelEnv('awrl-sentinel-noflock-', { without: ['flock'] });
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('is said at launch, with why and how to start one; the run starts all the same', async () => {
    process.env.AWRL_NOTIFY = 'json://127.0.0.1:9/unused';
    const l = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=20'),
      '--config',
      env.config,
      '++trial_name=no-flock',
    ]);
    delete process.env.AWRL_NOTIFY;
    expect(l.code, l.stderr).toBe(0);
    const runId = runIdOf(l.stdout);
    expect(l.stderr).toMatch(/^sentinel NOT started: .*flock \(util-linux\) is not on the PATH of /m);
    expect(l.stderr).toContain(
      `nobody watches it once this command ends; try again: awrl-tui sentinel start ${runId} --target ${env.sshd.alias}`,
    );
    const r = await cli(['runs', runId, ...env.target(), '--json']);
    const [row] = JSON.parse(r.stdout) as Array<{ state: string; sentinel: { state: string } }>;
    expect(row).toMatchObject({ state: 'running', sentinel: { state: 'none' } });
    await cli(['stop', runId, ...env.target(), '--grace', '2']);
  });
});
