/** @jsxRuntime classic */
// Over a real sshd behind a cuttable proxy: the dashboard's header says `reconnecting`, then the
// dashboard continues, and the run's steps arrive each exactly once, none missing.
import React from 'react';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { App } from '../../src/ui/app.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { renderInk, waitForFrame, type Rendered } from './helpers.js';
import { launchSim, type SimRun } from './sim-run.js';

function proxiedConfig(sshd: SshdHandle, proxy: TcpProxy): { file: string; alias: string } {
  const alias = `cockpit-proxied-${proxy.port}`;
  const kh = join(sshd.dir, `known_hosts_ui_${proxy.port}`);
  writeFileSync(kh, `[127.0.0.1]:${proxy.port} ${sshd.hostPublicKey}\n`);
  const file = join(sshd.dir, `ssh_config_ui_${proxy.port}`);
  writeFileSync(
    file,
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${proxy.port}`,
      `  User ${sshd.user}`,
      `  IdentityFile ${sshd.identityFile}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${kh}`,
      '  StrictHostKeyChecking yes',
    ].join('\n') + '\n',
  );
  return { file, alias };
}

const stepOf = (frame: string): number => Number(/step (\d+)\/\d+/.exec(frame)?.[1] ?? 0);

describe('dashboard across a connection cut', () => {
  let sshd: SshdHandle;
  let proxy: TcpProxy;
  let sim: SimRun;
  let transport: Transport;
  let session: LiveSession;
  let r: Rendered;

  beforeAll(async () => {
    process.env.AWRL_SIM_SPEED = '400';
    sshd = await startSshd();
    proxy = await startTcpProxy(sshd.port);
    sim = await launchSim();
    const cfg = proxiedConfig(sshd, proxy);
    transport = await openTransport(cfg.alias, {
      sshConfigFile: cfg.file,
      keepaliveIntervalMs: 300,
      keepaliveCountMax: 2,
      connectTimeoutMs: 1500,
      reconnect: { baseMs: 300, capMs: 1000 },
      heartbeatIntervalMs: 250,
      heartbeatTimeoutMs: 1500,
      followPollMs: 50,
    });
    session = createLiveSession({
      targets: [{ target: { ...sim.target, name: 'proxied', host: cfg.alias, sshConfigFile: cfg.file }, transport }],
      openRunId: sim.runId,
      runsPollMs: 1000,
      statePollMs: 1000,
    });
    r = renderInk(
      <App session={session} initialScreen="dashboard" size={{ columns: 120, rows: 40 }} colors={false} frameMs={50} />,
    );
  });

  afterAll(async () => {
    r?.unmount();
    await session?.close();
    await transport?.close();
    await proxy?.stop();
    await sim?.stop();
    await sshd?.stop();
  });

  it('shows reconnecting, then continues with no missing or repeated step', async () => {
    const before = await waitForFrame(
      r,
      (f) => stepOf(f) >= 2 && f.includes('connected │'),
      'two steps over ssh',
      40_000,
    );
    expect(before).toContain(`${sim.runId} on proxied`);

    await proxy.refuse();
    proxy.resetAll();
    if (process.env.AWRL_DEBUG) console.error('before cut', stepOf(before));
    const cut = await waitForFrame(
      r,
      (f) => /reconnecting in \d+ s \(attempt \d+\)/.test(f),
      'the reconnecting header',
      20_000,
    );
    const stepAtCut = stepOf(cut);
    // Let the run move on while we are away, so the catch-up has steps to deliver.
    await waitForFrame(r, (f) => /attempt [3-9]/.test(f), 'a few refused attempts', 20_000);

    if (process.env.AWRL_DEBUG) console.error('cut at', stepAtCut, r.lastFrame()?.split('\n')[1]);
    await proxy.pass();
    await waitForFrame(
      r,
      (f) => f.includes('connected │') && stepOf(f) >= stepAtCut + 3,
      'steps after the reconnect',
      40_000,
    );

    const steps = session
      .getState()
      .run!.log.map((l) => /Train step (\d+)\//.exec(l.text)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number);
    const expected = Array.from({ length: steps.length }, (_, i) => i + 1);
    expect(steps).toEqual(expected);
    expect(steps.length).toBeGreaterThanOrEqual(stepAtCut + 3);
  }, 150_000);
});
