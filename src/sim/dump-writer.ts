// The trainer's trajectory dumps (rollout.dump_to_file), written as webgym writes them: at each step
// the GRPO groups the step consumed, under `LOG/rollout/<tail_version>/`; and webgym/train.py's wipe
// of `logs/root/<exp>/<trial>/{rollout,test-rollout}` on every start (TR:166-185: "root" hard-coded).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SimPlan } from './plan.js';
import { dumpGroup } from './dump-records.js';
import { Rng } from './rng.js';

/** Groups dumped a step: the step's own (consumer batch / n_samples), at most AWRL_SIM_DUMP_GROUPS
 *  (default 2: every simulated run dumps, and the reference config's 128 tasks would be 1,024 episodes). */
function groupsPerStep(plan: SimPlan, env: Record<string, string | undefined>): number {
  const cap = /^\d+$/.test(env.AWRL_SIM_DUMP_GROUPS ?? '') ? Number(env.AWRL_SIM_DUMP_GROUPS) : 2;
  return Math.min(cap, Math.max(1, Math.ceil(plan.consumerBatchSize / plan.nSamples)));
}

export function writeStepDumps(plan: SimPlan, step: number, datasetSize: number, env = process.env): void {
  if (!plan.dumpToFile) return;
  const groups = groupsPerStep(plan, env);
  const tail = step - 1;
  const rng = Rng.of(plan.seed, step, 31);
  for (let k = 0; k < groups; k++) {
    writeGroup({
      logDir: plan.logDir,
      subdir: 'rollout',
      tailVersion: tail,
      headVersion: Math.max(0, tail - rng.int(0, plan.maxHeadOffpolicyness)),
      taskIndex: ((step - 1) * groups + k) % Math.max(1, datasetSize),
      nSamples: Math.min(plan.nSamples, 8),
      seed: plan.seed,
    });
  }
}

/** A completed test-rollout round's episodes, under `LOG/test-rollout/<model step>/` (the executor's
 *  is_eval dump dir, WE:874): a few of its tasks (AWRL_SIM_DUMP_GROUPS, default 2), two samples each. */
export function writeEvalDumps(
  plan: SimPlan,
  modelStep: number,
  round: number,
  tasks: number,
  env = process.env,
): void {
  if (!plan.dumpToFile) return;
  const cap = /^\d+$/.test(env.AWRL_SIM_DUMP_GROUPS ?? '') ? Number(env.AWRL_SIM_DUMP_GROUPS) : 2;
  for (let k = 0; k < Math.min(cap, Math.max(1, tasks)); k++) {
    const version = modelStep;
    const taskIndex = (round * cap + k) % Math.max(1, tasks);
    writeGroup({
      logDir: plan.logDir,
      subdir: 'test-rollout',
      tailVersion: version,
      headVersion: version,
      taskIndex,
      nSamples: 2,
      seed: plan.seed,
    });
  }
}

function writeGroup(g: Parameters<typeof dumpGroup>[0]): void {
  const files = dumpGroup(g);
  // Screenshots are copied before the record is written (WE:938-968, then WE:1087-1091).
  for (const f of [...files.filter((x) => x.rel.endsWith('.png')), ...files.filter((x) => !x.rel.endsWith('.png'))]) {
    const path = join(g.logDir, f.rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.bytes);
  }
}

/** train.py's wipe: every version directory under `logs/root/<exp>/<trial>/{rollout,test-rollout}`. */
export function wipeRootDumps(plan: SimPlan): void {
  for (const sub of ['rollout', 'test-rollout']) {
    const dir = join(plan.fileroot, 'logs', 'root', plan.experimentName, plan.trialName, sub);
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      continue;
    }
    for (const n of names) rmSync(join(dir, n), { recursive: true, force: true });
  }
}
