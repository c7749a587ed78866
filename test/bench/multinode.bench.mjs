// Multi-node GPU panel traffic: an 8-node cluster on this machine (test/harness/cluster.ts: own
// namespaces, sshd and slurmd per node, the simulator's nvidia-smi), the cockpit's poller asking all
// 8 nodes through ONE ssh connection to the head, 6 rounds, with the head->node connections reused
// (ControlMaster, the default) and without. Per round: time, bytes sent to the head (the command) and
// received (the answers), and logins on the nodes (sshd's "Accepted publickey" lines); per minute at
// the cockpit's 5 s cadence (12 rounds). Then the runs poll of a cockpit on a workdir with 3 old runs
// and the open one (logs of ~200 KiB), per minute at its 5 s pace: the listing before
// (every run with a 64 KiB log tail, every round) against now (the dashboard lists only the open run,
// without a tail; the Runs screen resends only the tails of logs that changed). Last, the pre-flight
// probe of an 8-node Slurm job (the nodes sbatch --test-only names, asked over ssh from the head):
// one node after another (the old way) against 8 at once. Figures are printed,
// never asserted. The harness is
// TypeScript: it is transpiled here (typescript's transpileModule) into a temp dir first.
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { openTransport } from '../../dist/remote/index.js';
import { GpuPoller } from '../../dist/gpu/index.js';
import { simInit } from '../../dist/sim/init.js';
import { resolveTarget, serializeRunRecord } from '../../dist/runs/index.js';
import { RunsList } from '../../dist/session/runs-list.js';
import { runProbe } from '../../dist/preflight/probe.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'awrl-mn-bench-'));
for (const f of ['cluster', 'cluster-conf', 'sshd', 'wait']) {
  const src = readFileSync(join(root, 'test', 'harness', `${f}.ts`), 'utf8');
  const out = ts.transpileModule(src, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(join(tmp, `${f}.js`), out.outputText);
}
cpSync(join(root, 'test', 'harness', 'node-source-addr.c'), join(tmp, 'node-source-addr.c'));
const { startCluster } = await import(pathToFileURL(join(tmp, 'cluster.js')).href);

const N = 8;
const ROUNDS = 6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sim = simInit(join(tmp, 'sim'), join(root, 'dist'), root);
const t0 = Date.now();
const cluster = await startCluster({ nodes: N, path: [join(sim.dir, 'bin')] });
console.log(`${N}-node cluster up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
let transport;
try {
  transport = await openTransport(cluster.headAlias, { sshConfigFile: cluster.sshConfigFile });
  let sent = 0;
  let received = 0;
  const counted = new Proxy(transport, {
    get(target, prop) {
      if (prop === 'exec') {
        return async (argv, o) => {
          sent += argv.reduce((s, a) => s + Buffer.byteLength(a) + 1, 0);
          const r = await target.exec(argv, o);
          received += r.stdout.length + r.stderr.length;
          return r;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const logins = () =>
    cluster.nodes.reduce(
      (s, n) => s + (readFileSync(join(n.dir, 'sshd.log'), 'utf8').match(/Accepted publickey/g) ?? []).length,
      0,
    );
  const nodes = cluster.nodes.map((n) => n.name);
  for (const reuseSec of [0, 60]) {
    const p = new GpuPoller(counted, { nodes, includeHead: false, reuseSec, onSnapshot: () => {} });
    const times = [];
    [sent, received] = [0, 0];
    const before = logins();
    let gpus = 0;
    let first = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const s = Date.now();
      const snaps = await p.pollOnce();
      times.push(Date.now() - s);
      if (i === 0) first = logins() - before;
      gpus = snaps.reduce((a, x) => a + x.gpus.length, 0);
    }
    // Logins after the first round: what a minute costs once the connections stand.
    const later = logins() - before - first;
    console.log(
      `${reuseSec ? 'reused connections (ControlMaster)' : 'a new login per node per round   '}: ${gpus} GPUs, round median ${median(times)} ms (max ${Math.max(...times)}), ` +
        `per round ${(sent / ROUNDS / 1024).toFixed(1)} KiB sent + ${(received / ROUNDS / 1024).toFixed(1)} KiB received; ` +
        `logins: ${first} in the first round, ${later} in the next ${ROUNDS - 1}; per minute at 5 s: ${((((sent + received) / ROUNDS) * 12) / 1024).toFixed(0)} KiB, ` +
        `${Math.round((later / (ROUNDS - 1)) * 12)} logins once connected`,
    );
  }
  await runsPollTraffic(
    counted,
    () => [sent, received],
    (v) => ([sent, received] = v),
  );
  await preflightNodes(transport, nodes, cluster);
} finally {
  await transport?.close().catch(() => {});
  await cluster.stop();
  rmSync(tmp, { recursive: true, force: true });
}

/** Bytes a minute of the runs poll (12 rounds at 5 s), before and after listing only what is shown. */
async function runsPollTraffic(t, counts, setCounts) {
  const work = join(tmp, 'work');
  const main = readFileSync(join(root, 'test', 'fixtures', 'shared', 'fixtures', 'areal-logs', 'run-a', 'main.log'));
  const cut = (k) => main.indexOf(`Train step ${k}/`);
  const ids = ['old-a-20261201-100000-0001', 'old-b-20261201-110000-0002', 'old-c-20261201-120000-0003'];
  const open = 'open-20261202-090000-0004';
  for (const [i, runId] of [...ids, open].entries()) {
    const runDir = join(work, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    const startedAt = new Date(Date.UTC(2026, 11, 1, 10 + i)).toISOString();
    const record = {
      version: 1,
      runId,
      experiment: 'bench',
      trial: 't',
      target: 'head',
      workdir: work,
      runDir,
      backend: 'direct',
      argv: ['python3'],
      secretNames: [],
      createdAt: startedAt,
      attempts: [{ n: 1, reason: 'launch', startedAt, pid: 999999 }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'exit.code'), '0\n');
    writeFileSync(
      join(runDir, 'stdout.log'),
      Buffer.concat([Buffer.from(('x'.repeat(199) + '\n').repeat(200)), main.subarray(0, cut(5))]),
    );
  }
  const target = resolveTarget({ target: t.target, workdir: work, backend: 'direct' }, {});
  if (typeof target === 'string') throw new Error(target);
  const conn = { target, transport: t };
  // The open run writes a step (~38 KiB: run-a's step 5 again) between rounds, as a live run does.
  const grow = () => appendFileSync(join(work, '.awrl', 'runs', open, 'stdout.log'), main.subarray(cut(5), cut(6)));
  const minute = async (label, round) => {
    await round(); // the first listing (every tail once) is not the steady state
    setCounts([0, 0]);
    const ROUNDS_ = 6;
    for (let i = 0; i < ROUNDS_; i++) {
      grow();
      await round();
    }
    const [s, r] = counts();
    const perMin = ((s + r) / ROUNDS_) * 12;
    console.log(
      `runs poll, ${label}: per round ${(s / ROUNDS_ / 1024).toFixed(1)} KiB sent + ${(r / ROUNDS_ / 1024).toFixed(1)} KiB received; per minute at 5 s: ${(perMin / 1024).toFixed(0)} KiB`,
    );
    return perMin;
  };
  const make = () =>
    new RunsList({ targets: [conn], listed: () => {}, failed: (_c, m) => console.log(`list failed: ${m}`) });
  // Before: every run, a 64 KiB tail each, every round (what the runs list read on every screen).
  const { listRuns } = await import('../../dist/runs/index.js');
  const before = await minute('before (every run, 64 KiB tail each)', () =>
    listRuns(t, target, { tailBytes: 64 * 1024 }),
  );
  const dash = make();
  await dash.refresh(conn);
  dash.setFocus(open);
  const onDash = await minute('now, dashboard (the open run only, no tail)', () => dash.refresh(conn));
  const runs = make();
  const onRuns = await minute('now, Runs screen (tails of changed logs only)', () => runs.refresh(conn));
  console.log(
    `runs poll per minute: before ${(before / 1024).toFixed(0)} KiB; dashboard ${(onDash / 1024).toFixed(1)} KiB (${(before / onDash).toFixed(0)}x less); ` +
      `Runs screen ${(onRuns / 1024).toFixed(0)} KiB (${(before / onRuns).toFixed(1)}x less)`,
  );
}

/** The pre-flight probe of an 8-node Slurm job: its nodes asked one at a time against 8 at once. */
async function preflightNodes(t, nodes, cluster) {
  const work = join(tmp, 'pf');
  mkdirSync(work, { recursive: true });
  const params = (parallel) => ({
    workdir: work,
    python: 'python3',
    modelPath: join(work, 'model'),
    fileroot: join(work, 'fileroot'),
    experiment: 'e',
    trial: 't',
    datasets: [],
    parallel,
    slurm: {
      partition: cluster.partition,
      sbatchArgs: ['--partition', cluster.partition, '--nodes', String(nodes.length), '--gres', 'gpu:8'],
      batchScript: '#!/bin/bash\nhostname\n',
    },
  });
  const times = { 1: [], 8: [] };
  let asked = 0;
  for (let i = 0; i < 3; i++) {
    for (const par of [1, 8]) {
      const s = Date.now();
      const f = await runProbe(t, params(par));
      times[par].push(Date.now() - s);
      asked = (f.slurm.testNodes ?? []).filter((n) => n.gpus.ok).length;
    }
  }
  const [one, eight] = [median(times[1]), median(times[8])];
  console.log(
    `pre-flight of an ${nodes.length}-node Slurm job (${asked} nodes named by sbatch --test-only and asked): ` +
      `one node at a time ${one} ms (median of 3), 8 at once ${eight} ms; ${(one / eight).toFixed(1)}x faster`,
  );
}
