// Entry of the fake nvidia-smi that `sim init` puts on PATH. Reads the simulated trainer's live
// state (AWRL_SIM_STATE, else the path baked into the wrapper script) and answers like the real one,
// for THIS node: on a multi-node cluster (one machine per node, or the test harness's namespaces)
// every node answers with its own GPUs, and their holder PIDs are real processes of that node:
//   - on a node of the fake Ray cluster (AWRL_SIM_RAY_DIR), its Ray process, and the node's index
//     is its place in the cluster (head 0, then workers in the order they joined);
//   - else on the trainer's own host, the trainer process;
//   - else no process of the run lives here: the GPUs are idle.
// AWRL_SIM_NODE overrides the node index. `<state dir>/gpu-holders/<hostname>` adds processes that
// hold memory outside any run (`GPU PID MIB NAME` lines; only live PIDs of this node count).
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { readState } from './state.js';
import { answer, parseExtraHolders, snapshot, withExtraHolders, type HolderOf } from './nvidia-smi.js';
import { alive as rayAlive, clusterOrder, headFor, membersOf } from './ray.js';
import { pidAliveHere, readNodes } from './ray-registry.js';

const host = hostname();
const now = Date.now();
const statePath = process.env.AWRL_SIM_STATE ?? '';
let state = statePath ? readState(statePath) : null;
const trainerHere = state !== null && (state.host === undefined || state.host === host);
// A killed trainer leaves its GPUs empty (on its own host, where its PID can be checked).
if (state && trainerHere && !pidAliveHere(state.pid)) state = null;
const per = state?.gpusPerNode ?? 8;

const rayDir = process.env.AWRL_SIM_RAY_DIR ?? '';
const rayNodes = rayDir ? readNodes(rayDir) : [];
const head = headFor(rayNodes, null, now);
const members = head ? clusterOrder(membersOf(rayNodes, head)) : [];
const rayIndex = members.findIndex((n) => n.host === host && rayAlive(n, now) && pidAliveHere(n.pid));

const firstActorNode = state ? Math.floor(state.rolloutGpus / per) : 0;
const nodeEnv = process.env.AWRL_SIM_NODE;
const node =
  nodeEnv !== undefined && /^\d+$/.test(nodeEnv) ? Number(nodeEnv) : rayIndex >= 0 ? rayIndex : firstActorNode;
const holderPid = rayIndex >= 0 ? members[rayIndex].pid : trainerHere && state ? state.pid : null;
const holderOf: HolderOf = () => holderPid;

let extras: ReturnType<typeof parseExtraHolders> = [];
try {
  const dir = join(statePath ? dirname(statePath) : '.', 'gpu-holders');
  extras = parseExtraHolders(readFileSync(join(dir, host.replace(/[^A-Za-z0-9_.-]/g, '_')), 'utf8')).filter((e) =>
    pidAliveHere(e.pid),
  );
} catch {
  /* none registered */
}
const r = answer(process.argv.slice(2), withExtraHolders(snapshot(state, node, now, per, holderOf), extras), now);
process.stdout.write(r.stdout);
process.exitCode = r.code;
