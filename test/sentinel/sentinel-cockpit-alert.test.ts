// The cockpit's side of a silent sentinel, through the live session as the cockpit runs it: a running
// run (a real process) whose sentinel's process is gone, as the run dir and the real list script show
// it. The open run's alerts hold `sentinel-silent` with or without channels (the person looking learns
// that nothing watches the run once they leave), the Runs screen's row says it as `runs` does, and with
// a channel the cockpit, the sender now, sends it (a loopback receiver). Local transport: the list
// script is the same bash.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../src/remote/index.js';
import { createLiveSession } from '../../src/session/live-session.js';
import { parseChannels } from '../../src/notify/index.js';
import { runsLines } from '../../src/ui/screens/runs.js';
import { lineText } from '../../src/ui/lines.js';
import { startReceiver } from '../harness/http-receiver.js';
import { localTarget } from '../harness/local-run.js';
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

  /** A running run whose sentinel beat last a minute ago, by a process that is gone. */
  function silentSentinelRun(runId: string): void {
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
  }

  async function openCockpit(runId: string, channels: ReturnType<typeof parseChannels>['channels']) {
    const transport = await openTransport('local', { followPollMs: 20 });
    const session = createLiveSession({
      targets: [{ target: localTarget(dir), transport }],
      openRunId: runId,
      gpuPoller: null,
      runsPollMs: 200,
      notify: { channels, terminal: null },
    });
    const alerts = () => session.getState().run?.alerts ?? [];
    const close = async () => {
      await session.close();
      await transport.close();
    };
    return { session, alerts, close };
  }

  it('without channels: the open run lists the sentinel-silent alert; the Runs row says it as runs does', async () => {
    const runId = 'cockpit-silent-nochannel';
    silentSentinelRun(runId);
    const c = await openCockpit(runId, []);
    try {
      await waitFor(() => c.alerts().some((a) => a.id === 'sentinel-silent'), {
        timeoutMs: 20_000,
        what: 'the sentinel-silent alert',
      });
      const alert = c.alerts().find((a) => a.id === 'sentinel-silent')!;
      expect(alert.detail).toMatch(
        /^sentinel silent since \S+ \(.+\); no sentinel is seen watching the run: once this watch detaches, it may go unwatched$/,
      );
      // What to do, with the target's own name (as `--target` takes it).
      expect(alert.advice).toBe(`start another: awrl-tui sentinel start ${runId} --target ${localTarget(dir).name}`);
      // On the run's row, or (too long for it) on the line under it.
      const lines = runsLines(c.session.getState().targets, 0, Date.now(), 140, 10).map(lineText);
      const at = lines.findIndex((l) => l.includes(runId));
      expect(lines.slice(at, at + 2).join('\n')).toMatch(/ {2}sentinel silent since /);
    } finally {
      await c.close();
    }
  });

  it('with a channel: the cockpit sends the alert, once', async () => {
    const runId = 'cockpit-silent';
    silentSentinelRun(runId);
    const receiver = await startReceiver();
    const { channels } = parseChannels([`json://127.0.0.1:${receiver.port}/cockpit`]);
    const c = await openCockpit(runId, channels);
    try {
      await waitFor(() => c.alerts().some((a) => a.id === 'sentinel-silent'), {
        timeoutMs: 20_000,
        what: "the dashboard's sentinel-silent alert",
      });
      await waitFor(() => receiver.received.some((r) => r.body.includes('"sentinel-silent"')), {
        what: 'the alert at the receiver',
      });
      const sent = receiver.received.map((r) => (JSON.parse(r.body) as { awrl: { event: string } }).awrl.event);
      expect(sent.filter((e) => e === 'alert')).toHaveLength(1);
      // Nothing said on the status line but what went wrong: every message went out.
      expect(c.session.getState().notice ?? '').not.toMatch(/not sent/);
    } finally {
      await c.close();
      await receiver.stop();
    }
  });
});
