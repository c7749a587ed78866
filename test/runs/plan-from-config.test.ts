// Issue #17 §2: one plan builder for --launch, --resume, --demo and the cockpit. The cockpit's path
// (planFromEvaluation on an evaluation it already has) gives the very plan --launch's does.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { evaluateConfig } from '../../src/config/index.js';
import { autoResumeProblem, planFromConfig, planFromEvaluation } from '../../src/runs/plan-from-config.js';
import type { Target } from '../../src/runs/targets.js';

const FILE = new URL('../../configs/webgym_8x8h100_grpo_inst_nokl.yaml', import.meta.url).pathname;
const TEXT = readFileSync(FILE, 'utf8');
const slurm: Target = {
  name: 'c',
  host: 'c',
  workdir: '/w',
  python: 'python3',
  backend: 'slurm',
  slurm: { timeLimit: '04:00:00', extraArgs: [] },
};
const env = { CPU_CLUSTER_TOKEN: 't', WANDB_API_KEY: 'w' };

describe('planFromEvaluation (the cockpit) = planFromConfig (--launch)', () => {
  it('the same plan, node count, Slurm warning and forwarded secrets from one evaluation', () => {
    const overrides = ['recover.freq_secs=null', 'seed=3'];
    const a = planFromConfig({ target: slurm, fileName: FILE, text: TEXT, overrides, env, autoResume: 2 });
    const ev = evaluateConfig({ fileName: FILE, text: TEXT, overrides, envNames: Object.keys(env) });
    const b = planFromEvaluation(ev, { target: slurm, fileName: FILE, text: TEXT, env, autoResume: 2 });
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    const shape = (p: typeof a.plan) => ({ ...p, trainerArgv: p.trainerArgv('/r/config.yaml') });
    expect(shape(b.plan)).toEqual(shape(a.plan));
    expect(b.plan).toMatchObject({ nodes: 8, autoResume: 2, secretNames: ['WANDB_API_KEY', 'CPU_CLUSTER_TOKEN'] });
    expect(b.planWarnings.join('\n')).toMatch(/recover\.freq_secs is unset but the Slurm time limit is 04:00:00/);
    expect(b.planWarnings.join('\n')).toMatch(/GEMINI_API_KEY is not set/);
    expect(b.messages).toEqual(a.messages);
  });

  it('auto-resume is Slurm only, in the one builder: the cockpit and --launch get the same refusal', () => {
    const direct: Target = { ...slurm, backend: 'direct' };
    const ev = evaluateConfig({ fileName: FILE, text: TEXT, overrides: [], envNames: Object.keys(env) });
    const r = planFromEvaluation(ev, { target: direct, fileName: FILE, text: TEXT, env, autoResume: 2 });
    expect(r.ok).toBe(false);
    expect(r.messages.at(-1)).toBe(`error: ${autoResumeProblem(direct, 2)}`);
    expect(autoResumeProblem(direct, 2)).toMatch(/--auto-resume resubmits Slurm jobs .*needs --backend slurm/);
    expect(autoResumeProblem(direct, 0)).toBeNull();
    expect(autoResumeProblem(slurm, 3)).toBeNull();
    expect(planFromEvaluation(ev, { target: direct, fileName: FILE, text: TEXT, env }).ok).toBe(true);
  });

  it('a config without experiment or trial name is not a plan (no `experimentName!`)', () => {
    const ev = evaluateConfig({ fileName: FILE, text: TEXT, overrides: [], envNames: [] });
    const broken = { ...ev, experimentName: null };
    const r = planFromEvaluation(broken, { target: slurm, fileName: FILE, text: TEXT, env });
    expect(r.ok).toBe(false);
  });

  it("an experiment name from the target's environment: the launch says why it cannot start", () => {
    const overrides = ['experiment_name=${oc.env:HOME}-x'];
    const r = planFromConfig({ target: slurm, fileName: FILE, text: TEXT, overrides, env });
    expect(r.ok).toBe(false);
    expect(r.messages.join('\n')).toMatch(/cannot launch: the experiment name depends on the target's environment/);
  });

  it('resume: names forwarded before are sent again when set, an optional one unset is not required', () => {
    const ev = evaluateConfig({ fileName: FILE, text: TEXT, overrides: [], envNames: Object.keys(env) });
    const r = planFromEvaluation(ev, {
      target: slurm,
      fileName: FILE,
      text: '',
      env: { ...env, HF_TOKEN: 'h' },
      previouslyForwarded: ['CPU_CLUSTER_TOKEN', 'GEMINI_API_KEY', 'HF_TOKEN'],
    });
    expect(r.ok && r.forwarding.forward).toEqual(['WANDB_API_KEY', 'CPU_CLUSTER_TOKEN', 'HF_TOKEN']);
    expect(r.ok && r.forwarding.missing).toEqual([]);
  });
});
