// A run resumed while the connection is down (#16): when the connection comes back, the GPU panel
// polls the new attempt's nodes, at the live pace. Whatever tells the poller first (the run's watch
// seeing the resume, or the runs list read again, here at its slow pace so that the watch is first and
// the list it reads is still the old one) must end with the poller on the new attempt: a direct
// run's nodes are per attempt as much as a Slurm job's. Real parts: the real local transport (behind
// a switch that makes it unreachable, as a lost link is), real run dirs and run.json, real
// trainer-like processes tagged with the run's id; the poller records its scopes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GpuPollScope } from '../../src/gpu/index.js';
import { LocalTransport } from '../../src/remote/index.js';
import type { ConnectionState, ExecOptions, Transport } from '../../src/remote/transport.js';
import { serializeRunRecord, type RunRecord, type Target } from '../../src/runs/index.js';
import { createLiveSession, type GpuPollerFactory, type LiveSession } from '../../src/session/live-session.js';
import { waitFor } from '../harness/wait.js';

/** The real transport, unreachable while `down`: every command fails and the state says so. */
class SwitchedTransport implements Transport {
  private down = false;
  private readonly listeners = new Set<(s: ConnectionState) => void>();
  constructor(private readonly t: LocalTransport) {}
  get target(): string {
    return this.t.target;
  }
  get state(): ConnectionState {
    return this.down ? { state: 'reconnecting', attempt: 1, nextInMs: 1000, lastError: 'link down' } : this.t.state;
  }
  setDown(down: boolean): void {
    this.down = down;
    for (const l of this.listeners) l(this.state);
  }
  onState(l: (s: ConnectionState) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  private lost<T>(): Promise<T> {
    return Promise.reject(new Error('connection lost: link down'));
  }
  exec(argv: string[], opts?: ExecOptions) {
    return this.down ? this.lost<Awaited<ReturnType<Transport['exec']>>>() : this.t.exec(argv, opts);
  }
  execStream(argv: string[], opts?: ExecOptions) {
    if (this.down) throw new Error('connection lost: link down');
    return this.t.execStream(argv, opts);
  }
  readFile(path: string, opts?: { offset?: number; length?: number }) {
    return this.down ? this.lost<Buffer>() : this.t.readFile(path, opts);
  }
  stat(path: string) {
    return this.down ? this.lost<Awaited<ReturnType<Transport['stat']>>>() : this.t.stat(path);
  }
  writeFileAtomic(path: string, bytes: string | Buffer, mode?: number) {
    return this.down ? this.lost<void>() : this.t.writeFileAtomic(path, bytes, mode);
  }
  follow(path: string, from: number, onEvent: Parameters<Transport['follow']>[2]) {
    return this.t.follow(path, from, onEvent);
  }
  close() {
    return this.t.close();
  }
}

const ENDED = 'outage-resume-20261202-031500-0001';
const LIVE = 'outage-resume-20261202-031500-0002';
let dir: string;
let local: LocalTransport;
let link: SwitchedTransport;
let session: LiveSession | undefined;
/** The trainer-like processes started (killed by pid at the end). */
const trainers: ChildProcess[] = [];
/** Every poller started: its scope, and whether it was stopped. */
const pollers: { scope: GpuPollScope; stopped: boolean }[] = [];

const runDirOf = (runId: string) => join(dir, '.awrl/runs', runId);

function writeRecord(runId: string, attempts: RunRecord['attempts'], pid: number): void {
  const runDir = runDirOf(runId);
  mkdirSync(runDir, { recursive: true });
  const record: RunRecord = {
    version: 1,
    runId,
    experiment: 'outage',
    trial: 'trial0',
    target: 'local',
    workdir: dir,
    runDir,
    backend: 'direct',
    argv: ['python3', 'webgym/train.py', '--config', `${runDir}/config.yaml`],
    secretNames: [],
    createdAt: attempts[0].startedAt,
    attempts,
    chainJobIds: [],
    autoResume: 0,
    nodes: 2,
  };
  writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
  writeFileSync(join(runDir, 'job.pid'), `${pid}\n`); // what the start script writes
  writeFileSync(join(runDir, 'stdout.log'), attempts.map((a) => `attempt ${a.n} output\n`).join(''));
}

/** A trainer-like process of `runId` (tagged as the start script tags the job). */
function startTrainer(runId: string): number {
  const p = spawn('sleep', ['300'], { env: { ...process.env, AWRL_RUN_ID: runId }, stdio: 'ignore' });
  trainers.push(p);
  return p.pid!;
}

const attempt = (n: number, pid: number, nodes: string[]): RunRecord['attempts'][number] => ({
  n,
  reason: n === 1 ? 'launch' : 'resume',
  startedAt: new Date(Date.now() - (3 - n) * 60_000).toISOString(),
  pid,
  nodes,
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'awrl-gpu-outage-'));
  local = new LocalTransport();
  link = new SwitchedTransport(local);
});

/** The cockpit's session on `runId`, its GPU pollers recorded. */
function open(runId: string): void {
  const target: Target = {
    name: 'gpu-head',
    host: 'local',
    workdir: dir,
    python: 'python3',
    backend: 'direct',
    slurm: { extraArgs: [] },
  };
  // Each poller delivers a round at once: an ended run's poller (one round, then stopped) and a
  // live one (running until told) are told apart by whether it is still running.
  const poller: GpuPollerFactory = (_conn, scope, onSnapshots) => {
    const p = { scope, stopped: false };
    pollers.push(p);
    onSnapshots([]);
    return () => (p.stopped = true);
  };
  session = createLiveSession({
    targets: [{ target, transport: link }],
    openRunId: runId,
    gpuPoller: poller,
    runFacts: async () => ({}),
    runsPollMs: 60_000,
    idleRunsPollMs: 60_000,
    statePollMs: 300,
    endedStatePollMs: 500,
  });
}

async function linkDown(): Promise<void> {
  link.setDown(true);
  await waitFor(() => session!.getState().targets[0].connection.state === 'reconnecting', {
    timeoutMs: 10_000,
    what: 'the cockpit to see the link down',
  });
}

/** Back up: a poller on the new attempt's nodes, still running (live), and the only one. */
async function backUp(before: number): Promise<void> {
  link.setDown(false);
  const moved = await waitFor(
    () => {
      const last = pollers.at(-1);
      return pollers.length > before && last && !last.stopped && last.scope.headName === 'head-b' ? last : null;
    },
    { timeoutMs: 30_000, what: "a poller on the new attempt's nodes" },
  );
  expect(moved.scope).toEqual({ nodes: ['node-b'], includeHead: true, headName: 'head-b' });
  await waitFor(() => session!.getState().run?.summary.state === 'running', {
    timeoutMs: 20_000,
    what: 'the run shown running',
  });
  expect(session!.getState().run?.pollingStopped).toBeFalsy();
  expect(pollers.filter((p) => !p.stopped)).toEqual([moved]);
}

afterEach(async () => {
  await session?.close();
  session = undefined;
  pollers.length = 0;
});

afterAll(async () => {
  for (const t of trainers) if (t.pid && t.exitCode === null && t.signalCode === null) process.kill(t.pid, 'SIGKILL');
  await local?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a run resumed while the connection is down', () => {
  it('an ended run: once the connection is back, the GPU panel polls the new attempt on its nodes, live', async () => {
    writeRecord(ENDED, [attempt(1, 999_999, ['head-a', 'node-a'])], 999_999); // no such process: ended
    open(ENDED);
    await waitFor(() => session!.getState().run?.pollingStopped, { timeoutMs: 30_000, what: 'the ended run' });
    await waitFor(() => pollers.some((p) => p.scope.headName === 'head-a'), {
      timeoutMs: 20_000,
      what: "the first attempt's nodes polled",
    });
    expect(pollers[0].scope).toEqual({ nodes: ['node-a'], includeHead: true, headName: 'head-a' });
    await linkDown();
    // Resumed meanwhile (from another terminal): attempt 2 on head-b + node-b, its trainer running.
    const pid = startTrainer(ENDED);
    writeRecord(ENDED, [attempt(1, 999_999, ['head-a', 'node-a']), attempt(2, pid, ['head-b', 'node-b'])], pid);
    await backUp(pollers.length);
  }, 120_000);

  it('a running run whose attempt died and was resumed on other nodes during the outage: polled there', async () => {
    const first = startTrainer(LIVE);
    writeRecord(LIVE, [attempt(1, first, ['head-a', 'node-a'])], first);
    open(LIVE);
    await waitFor(() => pollers.some((p) => p.scope.headName === 'head-a' && !p.stopped), {
      timeoutMs: 30_000,
      what: "the first attempt's nodes polled live",
    });
    await linkDown();
    // The watch never sees it end: running before the outage, running after it.
    process.kill(first, 'SIGKILL');
    const pid = startTrainer(LIVE);
    writeRecord(LIVE, [attempt(1, first, ['head-a', 'node-a']), attempt(2, pid, ['head-b', 'node-b'])], pid);
    await backUp(pollers.length);
  }, 120_000);
});
