// The trainer's recover bookkeeping on disk: recover_info/step_info.json (what a restart resumes
// from) and the simulator's own memo beside it (how many times this trial started, which one-shot
// crash faults already fired). Small synchronous I/O.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SimPlan } from './plan.js';
import { makeDirs } from './make-dirs.js';

export interface StepInfo {
  epoch: number;
  epoch_step: number;
  global_step: number;
  steps_per_epoch: number;
}

export const recoverInfoDir = (plan: SimPlan): string => join(plan.ckptDir, 'recover_info');

export function readStepInfo(plan: SimPlan): StepInfo | null {
  const p = join(recoverInfoDir(plan), 'step_info.json');
  if (!existsSync(p)) return null;
  try {
    const j = JSON.parse(readFileSync(p, 'utf8')) as StepInfo;
    return typeof j.global_step === 'number' ? j : null;
  } catch {
    return null;
  }
}

/** 0-based coordinates of the last completed step, as the trainer's recover handler writes them. */
export function writeStepInfo(plan: SimPlan, info: StepInfo): void {
  makeDirs(recoverInfoDir(plan));
  // json.dump(asdict(step_info), f, indent=4): dataclass field order, 4-space indent, no final newline.
  const ordered = {
    epoch: info.epoch,
    epoch_step: info.epoch_step,
    global_step: info.global_step,
    steps_per_epoch: info.steps_per_epoch,
  };
  writeFileSync(join(recoverInfoDir(plan), 'step_info.json'), JSON.stringify(ordered, null, 4));
}

export interface SimMemo {
  attempts: number;
  fired: string[];
  /** The simulated clock at the last phase change of the latest process (its restart starts after). */
  lastTimeMs?: number;
}

const memoPath = (plan: SimPlan): string => join(plan.ckptDir, '.awrl-sim.json');

export function readMemo(plan: SimPlan): SimMemo {
  try {
    const j = JSON.parse(readFileSync(memoPath(plan), 'utf8')) as SimMemo;
    return {
      attempts: j.attempts ?? 0,
      fired: j.fired ?? [],
      ...(typeof j.lastTimeMs === 'number' ? { lastTimeMs: j.lastTimeMs } : {}),
    };
  } catch {
    return { attempts: 0, fired: [] };
  }
}

export function writeMemo(plan: SimPlan, memo: SimMemo): void {
  makeDirs(plan.ckptDir);
  writeFileSync(memoPath(plan), JSON.stringify(memo));
}

/** wandb run id suffix, kept across restarts so the same wandb run is reattached. */
export function ensureWandbId(plan: SimPlan, nowMs: number): string {
  const dir = join(plan.fileroot, 'wandb_id');
  const p = join(dir, `${plan.experimentName}__${plan.trialName}`);
  if (existsSync(p)) return readFileSync(p, 'utf8').trim();
  const d = new Date(nowMs);
  const z = (n: number): string => String(n).padStart(2, '0');
  const suffix = `${d.getFullYear()}_${z(d.getMonth() + 1)}_${z(d.getDate())}_${z(d.getHours())}_${z(d.getMinutes())}_${z(d.getSeconds())}`;
  makeDirs(dir);
  writeFileSync(p, suffix);
  return suffix;
}
