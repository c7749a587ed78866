// A config file + overrides + a target -> a LaunchPlan, through the one config engine. Pure (the
// caller reads the file and passes the environment); used by `--launch`, the cockpit and tests.
import { evaluateConfig, formatDiagnostic, requiredSecretNames, type ConfigEvaluation } from '../config/index.js';
import type { Target } from './targets.js';
import type { LaunchPlan } from './launch.js';

export interface PlanInput {
  target: Target;
  fileName: string;
  text: string;
  overrides: string[];
  /** The local environment: names decide which secrets are forwarded (values are not read here). */
  env: Record<string, string | undefined>;
  autoResume?: number;
  force?: boolean;
}

export type PlanResult =
  /** `evaluation` is the config engine's result, for the pre-flight (so the config is read once). */
  | { ok: true; plan: LaunchPlan; messages: string[]; evaluation: ConfigEvaluation }
  /** Config errors: formatted `file:line: …` lines (plus any warnings). Nothing may be started. */
  | { ok: false; messages: string[]; errorCount: number };

export function planFromConfig(input: PlanInput): PlanResult {
  const { target, env } = input;
  const isSet = (n: string) => env[n] !== undefined && env[n] !== '';
  const ev = evaluateConfig({ fileName: input.fileName, text: input.text, overrides: input.overrides, envNames: Object.keys(env).filter(isSet) });
  const messages = ev.diagnostics.map((d) => formatDiagnostic(d, input.fileName));
  const errorCount = ev.diagnostics.filter((d) => d.severity === 'error').length;
  if (ev.hasErrors || !ev.resolved) return { ok: false, messages, errorCount: Math.max(1, errorCount) };
  const resolved = ev.resolved;
  if (target.backend === 'slurm' && target.slurm.timeLimit && (resolved.recover?.freq_secs === null || resolved.recover?.freq_secs === undefined)) {
    messages.push(
      `${input.fileName}: warning: recover.freq_secs is unset but the Slurm time limit is ${target.slurm.timeLimit}: a run killed at the limit resumes only from its last step- or epoch-based checkpoint`,
    );
  }
  const needs = requiredSecretNames(resolved);
  for (const n of needs) if (!n.required && !isSet(n.name)) messages.push(`warning: ${n.name} is not set (${n.why})`);
  // Forward what the trainer requires, plus optional keys that are set; a target may override the list.
  const secretNames = target.forwardEnv ?? needs.filter((n) => n.required || isSet(n.name)).map((n) => n.name);
  const cluster = resolved.cluster ?? {};
  return {
    ok: true,
    messages,
    evaluation: ev,
    plan: {
      target,
      configText: input.text,
      experiment: ev.experimentName ?? String(resolved.experiment_name),
      trial: ev.trialName ?? String(resolved.trial_name),
      trainerArgv: (remoteConfigPath) => ev.launchArgv({ remoteConfigPath, python: target.python }),
      secretNames,
      nodes: Number.isInteger(cluster.n_nodes) && cluster.n_nodes > 0 ? cluster.n_nodes : 1,
      gpusPerNode: Number.isInteger(cluster.n_gpus_per_node) ? cluster.n_gpus_per_node : undefined,
      autoResume: input.autoResume,
      force: input.force,
    },
  };
}
