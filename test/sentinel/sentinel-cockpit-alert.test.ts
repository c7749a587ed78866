// The cockpit's side of a silent sentinel: the open run's feed (RunFeed, the dashboard's data) and its
// notifications (notifyOpenRun) wired as live-session.ts wires them, one OutsideAlert between them.
// A running run (a real process) whose sentinel's process is gone, as the run dir and the real list
// script show it: the dashboard's alert list holds `sentinel-silent`, and the cockpit, the sender now,
// sends it to its channel (a loopback receiver). Local transport: the list script is the same bash.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../src/remote/index.js';
import { RunFeed } from '../../src/session/run-feed.js';
import { notifyOpenRun } from '../../src/session/run-notify.js';
import { OutsideAlert } from '../../src/watch/outside-alerts.js';
import { parseChannels } from '../../src/notify/index.js';
import { startReceiver } from '../harness/http-receiver.js';
import { localTarget, runningSummary } from '../harness/local-run.js';
import { waitFor } from '../harness/wait.js';

describe("the cockpit and a run's silent sentinel", () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-cockpit-sentinel-'));
  const pids: number[] = [];
  afterAll(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the sentinel-silent alert on the dashboard and sends it from the cockpit', async () => {
    const runId = 'cockpit-silent';
    const runDir = join(dir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    const run = spawn('sleep', ['600'], {
      env: { ...process.env, AWRL_RUN_ID: runId },
      stdio: 'ignore',
      detached: true,
    });
    pids.push(run.pid!);
    writeFileSync(join(runDir, 'job.pid'), `${run.pid}\n`);
    const at = new Date(Date.now() - 60_000).toISOString();
    const record = {
      version: 1,
      runId,
      experiment: 'e',
      trial: 't',
      target: 'local',
      workdir: dir,
      runDir,
      backend: 'direct',
      argv: ['python3'],
      secretNames: [],
      createdAt: at,
      attempts: [{ n: 1, reason: 'launch', startedAt: at, pid: run.pid }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), `${JSON.stringify(record)}\n`);
    const logPath = join(runDir, 'stdout.log');
    writeFileSync(logPath, 'starting\n');
    // The sentinel's last beat a minute ago, by a process that is gone (it ran and exited).
    const gone = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
    const beat = { v: 1, runId, pid: Number(gone.stdout), startedAt: at, heartbeatAt: at, periodMs: 1000 };
    writeFileSync(
      join(runDir, 'sentinel.json'),
      `${JSON.stringify({ ...beat, notify: [], state: 'running', sent: 0, failures: [] })}\n`,
    );

    const t = await openTransport('local', { followPollMs: 20 });
    const receiver = await startReceiver();
    const target = localTarget(dir);
    const sentinelAlert = new OutsideAlert();
    const feed = new RunFeed({
      transport: t,
      target,
      summary: runningSummary(runId),
      logPath,
      outsideAlerts: [sentinelAlert],
      onChange: () => undefined,
    });
    const { channels } = parseChannels([`json://127.0.0.1:${receiver.port}/cockpit`]);
    const notices: string[] = [];
    const notifier = notifyOpenRun(
      { watch: feed.watch, runId, transport: t, sentinelAlert },
      target,
      { channels, terminal: null },
      (n) => notices.push(n),
    );
    try {
      feed.start();
      await waitFor(() => feed.getView().alerts.some((a) => a.id === 'sentinel-silent'), {
        timeoutMs: 20_000,
        what: "the dashboard's sentinel-silent alert",
      });
      await waitFor(() => receiver.received.some((r) => r.body.includes('"sentinel-silent"')), {
        what: 'the alert at the receiver',
      });
      const sent = receiver.received.map((r) => (JSON.parse(r.body) as { awrl: { event: string } }).awrl.event);
      expect(sent.filter((e) => e === 'alert')).toHaveLength(1);
      // Nothing said on the status line but what went wrong: every message went out.
      expect(notices.filter((n) => /not sent/.test(n))).toEqual([]);
    } finally {
      notifier?.close();
      feed.close();
      await t.close();
      await receiver.stop();
    }
  });
});
