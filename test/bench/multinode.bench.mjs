// Multi-node GPU panel traffic: an 8-node cluster on this machine (test/harness/cluster.ts: own
// namespaces, sshd and slurmd per node, the simulator's nvidia-smi), the cockpit's poller asking all
// 8 nodes through ONE ssh connection to the head, 6 rounds, with the head->node connections reused
// (ControlMaster, the default) and without. Per round: time, bytes sent to the head (the command) and
// received (the answers), and logins on the nodes (sshd's "Accepted publickey" lines); per minute at
// the cockpit's 5 s cadence (12 rounds). Figures are printed, never asserted. The harness is
// TypeScript: it is transpiled here (typescript's transpileModule) into a temp dir first.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { openTransport } from '../../dist/remote/index.js';
import { GpuPoller } from '../../dist/gpu/index.js';
import { simInit } from '../../dist/sim/init.js';

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
} finally {
  await transport?.close().catch(() => {});
  await cluster.stop();
  rmSync(tmp, { recursive: true, force: true });
}
