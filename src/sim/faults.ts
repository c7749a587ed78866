// Fault injection for tests and demos, from AWRL_SIM_FAULT (comma-separated), so the trainer's own
// CLI stays untouched. Forms (N, M are 1-based global steps):
//
//   nccl-timeout@N      step N hangs in the weight broadcast, then the NCCL watchdog traceback, exit 1
//   oom@N               CUDA OOM in step N's PPO update (worker traceback + controller error), exit 1
//   stall:PHASE@N[:S]   step N stops making progress in PHASE (forever, or S real seconds)
//   nan-grad@N[-M]      grad_norm = nan, update_successful = 0
//   zero-reward@N[-M]   reward 0 from step N (to M; open-ended without -M): the VLM-cache symptom
//   omniboxes@N[-M]     Omniboxes `Instance alloc attempt` warnings from the rollout workers
//   episode-timeout@N[-M]  `[EPISODE_TIMEOUT]` warnings from the rollout workers
//
// A crash fault fires once per experiment+trial (remembered beside the checkpoints), so a resumed run
// gets past it as a real restarted trainer would. Pure parsing here.
import { PHASES } from '../health/phases.js';

// The phases a stall can hold are the ones the health rules tell apart (src/health/phases.ts).
export const STALL_PHASES = PHASES;
export type SimPhase = (typeof STALL_PHASES)[number];

const PHASE_ALIASES: Record<string, SimPhase> = {
  rollout: 'rollout_wait',
  waiting: 'rollout_wait',
  logp: 'recompute_logp',
  advantages: 'compute_advantages',
  ppo: 'ppo_update',
  weights: 'update_weights',
  saving: 'save',
};

export type Fault =
  | { kind: 'nccl-timeout' | 'oom'; step: number }
  | { kind: 'stall'; phase: SimPhase; step: number; seconds: number | null }
  | { kind: 'nan-grad' | 'zero-reward' | 'omniboxes' | 'episode-timeout'; from: number; to: number };

export class FaultSpecError extends Error {}

function stepRange(s: string, openEnded: boolean): [number, number] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(s);
  if (!m) throw new FaultSpecError(`bad step '${s}' (want N or N-M)`);
  const from = Number(m[1]);
  const to = m[2] !== undefined ? Number(m[2]) : openEnded ? Infinity : from;
  if (from < 1 || to < from) throw new FaultSpecError(`bad step range '${s}'`);
  return [from, to];
}

export function parseFaults(spec: string | undefined): Fault[] {
  if (!spec || !spec.trim()) return [];
  const out: Fault[] = [];
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const at = item.indexOf('@');
    if (at < 0) throw new FaultSpecError(`fault '${item}' needs @STEP`);
    const head = item.slice(0, at);
    const tail = item.slice(at + 1);
    if (head === 'nccl-timeout' || head === 'oom') {
      out.push({ kind: head, step: stepRange(tail, false)[0] });
    } else if (head === 'stall' || head.startsWith('stall:')) {
      const name = head === 'stall' ? 'update_weights' : head.slice(6);
      const phase = (STALL_PHASES as readonly string[]).includes(name) ? (name as SimPhase) : PHASE_ALIASES[name];
      if (!phase) throw new FaultSpecError(`unknown stall phase '${name}' (one of ${STALL_PHASES.join(', ')})`);
      const [stepStr, secStr] = tail.split(':');
      const seconds = secStr === undefined ? null : Number(secStr);
      if (seconds !== null && !(seconds >= 0)) throw new FaultSpecError(`bad stall seconds '${secStr}'`);
      out.push({ kind: 'stall', phase, step: stepRange(stepStr, false)[0], seconds });
    } else if (head === 'nan-grad' || head === 'zero-reward' || head === 'omniboxes' || head === 'episode-timeout') {
      const [from, to] = stepRange(tail, head === 'zero-reward');
      out.push({ kind: head, from, to });
    } else {
      throw new FaultSpecError(`unknown fault '${head}'`);
    }
  }
  return out;
}

/** The faults that act on one step. */
export function faultsAt(faults: readonly Fault[], step: number): Fault[] {
  return faults.filter((f) => ('step' in f ? f.step === step : step >= f.from && step <= f.to));
}

export const faultId = (f: Fault): string => ('step' in f ? `${f.kind}@${f.step}` : `${f.kind}@${f.from}`);
