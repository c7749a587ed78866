// A silently dead path (a TCP proxy that swallows bytes and closes nothing, like a dead NAT entry)
// is declared lost only when ssh keepalive gives up, seconds later. The run watch treats the log as
// unreadable from the moment the target last answered (SshTransport.lastHeardAt: the state poll's
// reply, bytes), not from the moment the loss was declared: the trainer's log clock stops there, so
// no stall can grow from the time keepalive took to notice. Real sshd, real proxy, a real run dir.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import type { RunWatch } from '../../src/watch/run-watch.js';
import { serializeRunRecord, type RunRecord } from '../../src/runs/run-record.js';
import type { Target } from '../../src/runs/targets.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { startTcpProxy, type TcpProxy } from '../harness/tcp-proxy.js';
import { proxiedConfig } from '../harness/proxied-ssh.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const LOG = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);

describe('a silently dead path', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-deadpath-'));
  const pids: number[] = [];
  let sshd: SshdHandle | undefined;
  let proxy: TcpProxy | undefined;
  let t: Transport | undefined;
  let watch: RunWatch | undefined;
  afterAll(async () => {
    watch?.close();
    await t?.close();
    await proxy?.stop();
    await sshd?.stop();
    for (const p of pids) if (pidAlive(p)) process.kill(p, 'SIGKILL');
    rmSync(workdir, { recursive: true, force: true });
  });

  it('stops the log clock where the target last answered, not where keepalive gave up', async () => {
    sshd = await startSshd();
    proxy = await startTcpProxy(sshd.port);
    const cfg = proxiedConfig(sshd, proxy, 'deadpath');
    // Keepalive notices the dead path after ~3 s; the state poll answers every 300 ms.
    t = await openTransport(cfg.alias, {
      sshConfigFile: cfg.file,
      keepaliveIntervalMs: 1000,
      keepaliveCountMax: 3,
      connectTimeoutMs: 1500,
      reconnect: { baseMs: 200, capMs: 800 },
      heartbeatIntervalMs: 250,
      heartbeatTimeoutMs: 1500,
      followPollMs: 30,
    });
    const runId = 'deadpath-20261201-000000-0001';
    const runDir = join(workdir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    const job = spawn('sleep', ['600'], {
      env: { ...process.env, AWRL_RUN_ID: runId },
      stdio: 'ignore',
      detached: true,
    });
    pids.push(job.pid!);
    const record: RunRecord = {
      version: 1,
      runId,
      experiment: 'e',
      trial: 't',
      target: cfg.alias,
      workdir,
      runDir,
      backend: 'direct',
      argv: ['python3'],
      secretNames: [],
      createdAt: '2026-12-01T00:00:00.000Z',
      attempts: [{ n: 1, reason: 'launch', startedAt: '2026-12-01T00:00:00.000Z', pid: job.pid! }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'job.pid'), `${job.pid}\n`);
    const logPath = join(runDir, 'stdout.log');
    // The log without its end record: a run still going.
    const body = LOG.subarray(0, LOG.lastIndexOf('\n', LOG.lastIndexOf('Training completes')) + 1);
    writeFileSync(logPath, body);
    const target = {
      name: cfg.alias,
      host: cfg.alias,
      workdir,
      backend: 'direct',
      slurm: { extraArgs: [] },
    } as unknown as Target;
    const outs: WatchOutput[] = [];
    watch = createRunWatch({ transport: t, target, runId, logPath, whenEnded: 'pause', statePollMs: 300 });
    watch.on((o) => outs.push(o));
    watch.start();
    const w = watch;
    await waitFor(
      () => outs.some((o) => o.type === 'state' && o.summary.state === 'running') && w.offset === body.length,
      {
        timeoutMs: 30_000,
        what: 'the log read and the run seen running',
      },
    );
    await waitFor(() => w.alerts.logNow(Date.now()) !== null, { timeoutMs: 30_000, what: 'the log clock to run' });
    // A poll answered just now: the last answer is fresh when the path dies.
    await waitFor(() => Date.now() - (t!.lastHeardAt ?? 0) < 100, { timeoutMs: 10_000, what: 'a fresh answer' });
    const heldAt = Date.now();
    const clockAtHold = w.alerts.logNow(heldAt)!;
    await proxy.hold();
    await waitFor(() => outs.some((o) => o.type === 'connection' && o.state === 'lost'), {
      timeoutMs: 30_000,
      what: 'keepalive to give up',
    });
    const lostAt = Date.now();
    // Keepalive took seconds: the assertion below would be void if it had not.
    expect(lostAt - heldAt).toBeGreaterThan(2500);
    const clockAtLoss = w.alerts.logNow(lostAt)!;
    // The log clock stopped at the last answer before the hold (within one poll), not at the loss.
    expect(clockAtLoss - clockAtHold).toBeLessThan(700);
    await new Promise((r) => setTimeout(r, 1000));
    expect(w.alerts.logNow(Date.now())).toBe(clockAtLoss);
    await proxy.pass();
    await waitFor(() => outs.some((o) => o.type === 'connection' && o.state === 'restored'), {
      timeoutMs: 30_000,
      what: 'the reconnect',
    });
  }, 90_000);
});
