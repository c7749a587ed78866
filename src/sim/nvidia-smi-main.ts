// Entry of the fake nvidia-smi that `sim init` puts on PATH. Reads the simulated trainer's live
// state (AWRL_SIM_STATE, else the path baked into the wrapper script) and answers like the real one.
// AWRL_SIM_NODE picks which simulated node this machine is (default: the first training node, whose
// memory follows the trainer's phases).
import { readState } from './state.js';
import { answer, snapshot } from './nvidia-smi.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const statePath = process.env.AWRL_SIM_STATE ?? '';
let state = statePath ? readState(statePath) : null;
if (state && !alive(state.pid)) state = null; // a killed trainer leaves its GPUs empty
const per = state?.gpusPerNode ?? 8;
const firstActorNode = state ? Math.floor(state.rolloutGpus / per) : 0;
const nodeEnv = process.env.AWRL_SIM_NODE;
const node = nodeEnv !== undefined && /^\d+$/.test(nodeEnv) ? Number(nodeEnv) : firstActorNode;
const now = Date.now();
const r = answer(process.argv.slice(2), snapshot(state, node, now, per), now);
process.stdout.write(r.stdout);
process.exitCode = r.code;
