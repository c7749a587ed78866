// Which hosts the live session's GPU panel polls for a run, and what reaches the panel, with real
// parts: the head is this machine (LocalTransport), "node2" a real sshd on 127.0.0.2 reached from
// the head over a real ssh hop (a test-only ssh_config given through AWRL_NODE_SSH_CONFIG, the way
// a user would), "node3" a closed port on 127.0.0.3, and a real one-node Slurm cluster for the live
// allocation. Each host's fake nvidia-smi (test/preflight/fixtures) answers from its own data dir,
// so figures shown for node2 can only have come through node2's sshd. Last, the real command
// (`awrl-tui watch RUN --check-nodes node2,node3`, built dist/) in tmux shows the same panel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/remote/index.js';
import { serializeRunRecord, type RunRecord, type Target } from '../../src/runs/index.js';
import type { GpuPollScope } from '../../src/gpu/index.js';
import { gpuLines } from '../../src/ui/panels/gpu.js';
import {
  createLiveSession,
  defaultGpuPoller,
  type GpuPollerFactory,
  type LiveSession,
} from '../../src/session/live-session.js';
import type { GpuSnapshot } from '../../src/session/types.js';
import { lineText } from '../../src/ui/lines.js';
import { startSlurm, type SlurmCluster } from '../harness/slurm.js';
import { freePort, startSshd, type SshdHandle } from '../harness/sshd.js';
import { TmuxSession } from '../harness/tmux.js';
import { waitFor } from '../harness/wait.js';
import { BIN } from './sim-run.js';

const FAKE_SMI_DIR = new URL('../preflight/fixtures', import.meta.url).pathname;
const H100 = 'NVIDIA H100 80GB HBM3';
const HOST = hostname().split('.')[0];

let dir: string;
let nodesConfig: string;
let headSmiDir: string;
let workdir: string;
let node2: SshdHandle;
let slurm: SlurmCluster;
let transport: LocalTransport;
let session: LiveSession | undefined;
let jobId = '';
let heldJobId = '';
const savedSshConfig = process.env.AWRL_NODE_SSH_CONFIG;
/** Every scope the session asked a poller for, in order. */
const scopes: GpuPollScope[] = [];

function gpuRows(usedGB: number[], util: number): string {
  return (
    usedGB
      .map((u, i) => `${i}, GPU-${i}0000000-1111-2222-3333-444444444444, ${H100}, ${u * 1024}, 81559, ${util}`)
      .join('\n') + '\n'
  );
}

function writeRun(runId: string, backend: 'direct' | 'slurm', attempt: Partial<RunRecord['attempts'][number]>): void {
  const runDir = join(workdir, '.awrl/runs', runId);
  mkdirSync(runDir, { recursive: true });
  const startedAt = new Date().toISOString();
  const record: RunRecord = {
    version: 1,
    runId,
    experiment: 'gpu-scope',
    trial: 'trial0',
    target: 'local',
    workdir,
    runDir,
    backend,
    argv: ['python3', 'webgym/train.py', '--config', `${runDir}/config.yaml`],
    secretNames: [],
    createdAt: startedAt,
    attempts: [{ n: 1, reason: 'launch', startedAt, ...attempt }],
    chainJobIds: [],
    autoResume: 0,
    nodes: 1,
  };
  writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'awrl-ui-gpu-scope-'));
  workdir = join(dir, 'checkout');
  const smi = { head: join(dir, 'smi-head'), node2: join(dir, 'smi-node2') };
  for (const d of Object.values(smi)) mkdirSync(d);
  writeFileSync(join(smi.head, 'gpus.csv'), gpuRows([10, 11], 3));
  writeFileSync(join(smi.node2, 'gpus.csv'), gpuRows([68, 69, 70, 71], 97));
  // sshd uses its first SetEnv line only: both variables on it (SHLVL=1 keeps pyenv's .bashrc out).
  [node2, slurm] = await Promise.all([
    startSshd({ listenAddress: '127.0.0.2', extraConfig: [`SetEnv SHLVL=1 AWRL_FAKE_SMI_DIR=${smi.node2}`] }),
    startSlurm(),
  ]);
  const closedPort = await freePort('127.0.0.3');
  const hostBlock = (name: string, addr: string, port: number) => [
    `Host ${name}`,
    `  HostName ${addr}`,
    `  Port ${port}`,
    `  User ${node2.user}`,
    `  IdentityFile ${node2.identityFile}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${node2.knownHostsFile}`,
    '  GlobalKnownHostsFile /dev/null',
    '  StrictHostKeyChecking yes',
  ];
  nodesConfig = join(dir, 'nodes_ssh_config');
  headSmiDir = smi.head;
  writeFileSync(
    nodesConfig,
    [...hostBlock('node2', '127.0.0.2', node2.port), ...hostBlock('node3', '127.0.0.3', closedPort)].join('\n') + '\n',
  );
  // The head is this process's machine: the fan-out reads the variable from its environment.
  process.env.AWRL_NODE_SSH_CONFIG = nodesConfig;

  // A live allocation: squeue names this machine as the job's node.
  jobId = execFileSync('sbatch', ['--parsable', '-c', '1', '--wrap', 'sleep 300'], {
    env: slurm.env,
    cwd: slurm.dir,
    encoding: 'utf8',
  })
    .trim()
    .split(';')[0];
  await waitFor(
    () =>
      execFileSync('squeue', ['-h', '-j', jobId, '-o', '%T'], { env: slurm.env, encoding: 'utf8' }).trim() ===
      'RUNNING',
    { timeoutMs: 30_000, what: `Slurm job ${jobId} to run` },
  );

  // A queued job (held until the test releases it): its run has no node yet.
  heldJobId = execFileSync('sbatch', ['--parsable', '--hold', '-c', '1', '--wrap', 'sleep 300'], {
    env: slurm.env,
    cwd: slurm.dir,
    encoding: 'utf8',
  })
    .trim()
    .split(';')[0];
  writeRun('slurm-queued-20261129-111500-0004', 'slurm', { jobId: heldJobId });
  writeRun('direct-20261129-111500-0001', 'direct', { pid: 999_999 });
  writeRun('slurm-ended-20261129-111500-0002', 'slurm', { jobId: '999999', nodes: ['node2'] });
  writeRun('slurm-live-20261129-111500-0003', 'slurm', { jobId, nodes: ['some-old-node'] });

  transport = new LocalTransport();
  // Only PATH and the head's data dir come from the setup line (node2's dir from its sshd); the
  // Slurm clients find the cluster through it too, so squeue must run after it.
  const setup = `${slurm.setupLine}; export PATH='${FAKE_SMI_DIR}':"$PATH" AWRL_FAKE_SMI_DIR="\${AWRL_FAKE_SMI_DIR:-${smi.head}}"`;
  const target: Target = {
    name: 'head-0',
    host: 'local',
    workdir,
    python: 'python3',
    setup,
    backend: 'direct',
    slurm: { extraArgs: [] },
  };
  // The real poller (src/gpu over the real hop), except for the live allocation: this machine has
  // no sshd on port 22 to be asked through, and only its scope is under test there.
  const poller: GpuPollerFactory = (conn, scope, on) => {
    scopes.push(scope);
    return scope.nodes?.includes(HOST) ? () => {} : defaultGpuPoller(conn, scope, on);
  };
  session = createLiveSession({
    targets: [{ target, transport, directRunHosts: ['node2', 'node3'] }],
    gpuPoller: poller,
    runFacts: async () => ({}),
    runsPollMs: 60_000,
  });
}, 90_000);

afterAll(async () => {
  await session?.close();
  await transport?.close();
  for (const id of [jobId, heldJobId]) if (id) execFileSync('scancel', [id], { env: slurm.env });
  await Promise.all([node2?.stop(), slurm?.stop()]);
  if (savedSshConfig === undefined) delete process.env.AWRL_NODE_SSH_CONFIG;
  else process.env.AWRL_NODE_SSH_CONFIG = savedSshConfig;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(
  runId: string,
  what: string,
  ready: (gpus: GpuSnapshot[]) => boolean = (g) => g.length > 0,
): Promise<GpuSnapshot[]> {
  const before = scopes.length;
  session!.actions.selectRun(runId);
  await waitFor(() => scopes.length > before, { timeoutMs: 20_000, what: `the poller scope of ${what}` });
  return ready([])
    ? []
    : waitFor(
        () => {
          const g = session!.getState().run?.gpus ?? [];
          return ready(g) ? g : null;
        },
        { timeoutMs: 30_000, what: `GPU snapshots of ${what}` },
      );
}

const frameText = (gpus: GpuSnapshot[], w: number, h: number) =>
  gpuLines({ nodes: gpus, memory: [] }, w, h).map(lineText).join('\n');

describe("the live session polls a run's GPUs where the run is", () => {
  it('direct run with hosts: the head (by its target name) and each host; node3 unreachable, never zero GPUs', async () => {
    const gpus = await open('direct-20261129-111500-0001', 'the direct run', (g) => g.length === 3);
    expect(scopes.at(-1)).toEqual({ nodes: ['node2', 'node3'], includeHead: true });
    expect(gpus.map((s) => [s.node, s.gpus.map((g) => g.usedMiB! / 1024), s.unreachable ?? false])).toEqual([
      ['head-0', [10, 11], false],
      ['node2', [68, 69, 70, 71], false],
      ['node3', [], true],
    ]);
    expect(gpus[1].gpus[0]).toMatchObject({ name: H100, totalMiB: 81559, utilPct: 97 });
    expect(gpus[2].error).toMatch(/^node3: ssh to the node failed/);

    const f = frameText(gpus, 110, 8);
    expect(f).toMatch(/3 nodes · 6 GPUs · 1 unreachable/);
    expect(f).toMatch(/^head-0\s+0\s+[█░]+ 10\/80G\s+1\s+[█░]+ 11\/80G/m);
    expect(f).toMatch(/^node2\s+0\s+[█░]+ 68\/80G.*3\s+[█░]+ 71\/80G/m);
    expect(f).toMatch(/^node3\s+unreachable: ssh to the node failed/m);
    // A narrow, short panel: a line per node.
    expect(frameText(gpus, 60, 4).split('\n').slice(1)).toEqual([
      'head-0  2× H100  mem 10–11/80 GB  util 3%',
      'node2   4× H100  mem 68–71/80 GB  util 97%',
      expect.stringMatching(/^node3\s+unreachable: ssh to the node failed/),
    ]);
  });

  it('direct run with hosts: the leftover check looks on the hosts too (node3 said unreachable)', async () => {
    await session!.actions.checkLeftovers('direct-20261129-111500-0001');
    const st = session!.getState();
    expect(st.leftovers).toMatchObject({ phase: 'found', runId: 'direct-20261129-111500-0001', list: [] });
    // Not an all-clear: the node that could not be reached is named with the result (#16 defect 3).
    const unchecked = st.leftovers?.phase === 'found' ? (st.leftovers.unchecked ?? []) : [];
    expect(unchecked.join('\n')).toMatch(/^node3: .*\(unreachable\)$/m);
  });

  it('Slurm run squeue no longer knows: the nodes its latest attempt recorded, not the login node', async () => {
    const gpus = await open(
      'slurm-ended-20261129-111500-0002',
      'the ended Slurm run',
      (g) => g.length === 1 && g[0].gpus.length > 0,
    );
    // The target's direct-run hosts (node3) are not added to a Slurm run.
    expect(scopes.at(-1)).toEqual({ nodes: ['node2'], includeHead: false });
    expect(gpus.map((s) => s.node)).toEqual(['node2']);
    expect(gpus[0].gpus.map((g) => g.usedMiB! / 1024)).toEqual([68, 69, 70, 71]);
  });

  it("Slurm run with a live job: its allocation as squeue names it (after the target's setup line)", async () => {
    await open('slurm-live-20261129-111500-0003', 'the live Slurm run', () => true);
    expect(scopes.at(-1)).toEqual({ nodes: [HOST], includeHead: false });
  });

  it('Slurm run opened while queued: once its job runs, the poller moves to the allocation', async () => {
    const runId = 'slurm-queued-20261129-111500-0004';
    const opened = scopes.length;
    // No node of its own yet: nothing is polled (not the login node), and the panel says why.
    session!.actions.selectRun(runId);
    const queued = await waitFor(
      () => {
        const g = session!.getState().run?.gpus ?? [];
        return g.length === 1 && g[0].node === 'allocation' ? g : null;
      },
      { timeoutMs: 30_000, what: "the queued run's GPU panel" },
    );
    expect(queued[0]).toMatchObject({ gpus: [], error: 'no allocation (pending)' });
    expect(scopes.length).toBe(opened);
    const before = scopes.length;
    execFileSync('scontrol', ['release', heldJobId], { env: slurm.env });
    await waitFor(
      () =>
        execFileSync('squeue', ['-h', '-j', heldJobId, '-o', '%T'], { env: slurm.env, encoding: 'utf8' }).trim() ===
        'RUNNING',
      { timeoutMs: 30_000, what: `Slurm job ${heldJobId} to run` },
    );
    // The runs list (every 5 s in the cockpit; asked for here) is what notices the job started.
    await waitFor(() => (session!.actions.refreshRuns(), scopes.length > before), {
      timeoutMs: 20_000,
      intervalMs: 500,
      what: 'the poller to be restarted',
    });
    expect(scopes.slice(before)).toEqual([{ nodes: [HOST], includeHead: false }]);
    expect(session!.getState().selectedRunId).toBe(runId);
  });
});

describe('awrl-tui watch RUN --check-nodes H1,H2 (the real command in tmux)', () => {
  it("the dashboard's GPU panel shows the head, node2 through its sshd, node3 unreachable", async () => {
    const targets = join(dir, 'targets.yaml');
    const setup = `export PATH='${FAKE_SMI_DIR}':"$PATH" AWRL_FAKE_SMI_DIR="\${AWRL_FAKE_SMI_DIR:-${headSmiDir}}"`;
    writeFileSync(
      targets,
      `targets:\n  box:\n    host: local\n    workdir: ${workdir}\n    setup: ${JSON.stringify(setup)}\n`,
    );
    const t = await TmuxSession.start({
      command: `sh -c 'node ${BIN} watch direct-20261129-111500-0001 --target box --check-nodes node2,node3; echo EXITED=$?; exec sleep 600'`,
      env: { AWRL_TARGETS_FILE: targets, AWRL_NODE_SSH_CONFIG: nodesConfig },
      width: 120,
      height: 40,
    });
    try {
      const screen = await t.waitForScreen(
        (x) => /node3\s+unreachable/.test(x) && /node2\s+0\s+[█░]+ 68\/80G/.test(x),
        'the three nodes in the GPU panel',
        30_000,
      );
      expect(screen).toMatch(/─ GPU memory ─+ 3 nodes · 6 GPUs · 1 unreachable ─/);
      expect(screen).toMatch(/box\s+0\s+[█░]+ 10\/80G\s+1\s+[█░]+ 11\/80G/);
      expect(screen).toMatch(/node3\s+unreachable: ssh to the node failed/);
      await t.type('q');
      await t.waitForScreen((x) => x.includes('EXITED=0'), 'the cockpit to quit', 15_000);
    } finally {
      await t.kill();
    }
  });
});
