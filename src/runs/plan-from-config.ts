// A config (file + overrides, or an evaluation already made) + a target -> a LaunchPlan, through the
// one config engine. The ONE plan builder: `--launch`, `--launch --resume`'s secrets, `--demo` and
// the cockpit all come through here, so they cannot differ (node count, Slurm warnings, auto-resume,
// the forwarded secrets). Pure (the caller reads the file and passes the environment).
import { evaluateConfig, formatDiagnostic, type ConfigEvaluation } from '../config/index.js';
import { forwardingFor, type ForwardDecision } from './forwarding.js';
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
  /** `--launch --resume`: the names the run forwarded when it was launched (forwarding.ts). */
  previouslyForwarded?: readonly string[];
}

export type PlanResult =
  /** `evaluation` is the config engine's result, for the pre-flight (so the config is read once);
   *  `forwarding` the secrets decision the pre-flight shows and the launch sends. */
  | {
      ok: true;
      plan: LaunchPlan;
      messages: string[];
      /** The lines of `messages` that the plan adds to the config's own diagnostics (Slurm, secrets). */
      planWarnings: string[];
      evaluation: ConfigEvaluation;
      forwarding: ForwardDecision;
    }
  /** Config errors: formatted `file:line: …` lines (plus any warnings). Nothing may be started. */
  | { ok: false; messages: string[]; errorCount: number };

export const setNames = (env: Record<string, string | undefined>): string[] =>
  Object.keys(env).filter((n) => env[n] !== undefined && env[n] !== '');

export function planFromConfig(input: PlanInput): PlanResult {
  const ev = evaluateConfig({
    fileName: input.fileName,
    text: input.text,
    overrides: input.overrides,
    envNames: setNames(input.env),
  });
  return planFromEvaluation(ev, input);
}

/** Why `--auto-resume N` cannot be used on this target, or null: it resubmits Slurm jobs. The one
 *  rule, for `--launch` (a usage error before anything is read) and the plan builder (the cockpit). */
export function autoResumeProblem(target: Target, autoResume: number): string | null {
  if (autoResume > 0 && target.backend !== 'slurm')
    return '--auto-resume resubmits Slurm jobs after TIMEOUT/PREEMPTED/NODE_FAIL: it needs --backend slurm';
  return null;
}

/** The same, for a config evaluated already (the cockpit's committed config: evaluated once). */
export function planFromEvaluation(ev: ConfigEvaluation, input: Omit<PlanInput, 'overrides'>): PlanResult {
  const { target, env } = input;
  const messages = ev.diagnostics.map((d) => formatDiagnostic(d, input.fileName));
  const errorCount = ev.diagnostics.filter((d) => d.severity === 'error').length;
  if (!ev.hasErrors && ev.resolved && (!ev.experimentName || !ev.trialName)) {
    // The run dir is named by both: a launch cannot start without knowing them here.
    const why = ev.experimentNameUnknown ?? 'experiment_name and trial_name must be set';
    messages.push(`${input.fileName}: error: cannot launch: ${why}; set it to a plain value`);
  }
  if (ev.hasErrors || !ev.resolved || !ev.experimentName || !ev.trialName)
    return { ok: false, messages, errorCount: Math.max(1, errorCount) };
  const noAutoResume = autoResumeProblem(target, input.autoResume ?? 0);
  if (noAutoResume) return { ok: false, messages: [...messages, `error: ${noAutoResume}`], errorCount: errorCount + 1 };
  const resolved = ev.resolved;
  const own = messages.length;
  if (
    target.backend === 'slurm' &&
    target.slurm.timeLimit &&
    (resolved.recover?.freq_secs === null || resolved.recover?.freq_secs === undefined)
  ) {
    messages.push(
      `${input.fileName}: warning: recover.freq_secs is unset but the Slurm time limit is ${target.slurm.timeLimit}: a run killed at the limit resumes only from its last step- or epoch-based checkpoint`,
    );
  }
  const forwarding = forwardingFor(resolved, target, setNames(env), input.previouslyForwarded);
  for (const n of forwarding.secrets)
    if (!n.required && !n.dropped && !forwarding.forward.includes(n.name))
      messages.push(`warning: ${n.name} is not set (${n.why})`);
  messages.push(...forwarding.warnings);
  const cluster = resolved.cluster ?? {};
  return {
    ok: true,
    messages,
    planWarnings: messages.slice(own),
    evaluation: ev,
    forwarding,
    plan: {
      target,
      configText: input.text,
      experiment: ev.experimentName,
      trial: ev.trialName,
      trainerArgv: (remoteConfigPath) => ev.launchArgv({ remoteConfigPath, python: target.python }),
      secretNames: forwarding.forward,
      nodes: Number.isInteger(cluster.n_nodes) && cluster.n_nodes > 0 ? cluster.n_nodes : 1,
      gpusPerNode: Number.isInteger(cluster.n_gpus_per_node) ? cluster.n_gpus_per_node : undefined,
      autoResume: input.autoResume,
      force: input.force,
    },
  };
}
