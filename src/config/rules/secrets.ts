// A secret written into the config ends up in the uploaded file, in the resolved config.yaml the
// trainer writes next to its logs, and (as an override) in `ps`: ask for the env var instead.
// The finding names the key, never the value.
import { isSecretKey, isSecretValue, secretEnvNames } from '../secret-keys.js';
import type { Rule, RuleFinding } from './context.js';

export { SECRET_KEY } from '../secret-keys.js';

const ALTERNATIVE: Record<string, string> = {
  'stats_logger.wandb.wandb_api_key': 'export WANDB_API_KEY instead',
  'webgym.cpu_cluster_token':
    'export the variable named by webgym.cpu_cluster_token_env_var (CPU_CLUSTER_TOKEN) instead',
  'stats_logger.swanlab.api_key': 'export SWANLAB_API_KEY instead',
};

export const secretRules: Rule = ({ cfg, written }) => {
  const names = secretEnvNames(cfg);
  const out: RuleFinding[] = [];
  // Report a secret where it is written; an interpolation that copies it elsewhere
  // (rollout.scheduling_spec: ${actor.scheduling_spec}) is the same secret, not another finding.
  const seen = new Set<unknown>();
  const walk = (v: unknown, path: string[]) => {
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, String(i)]));
      return;
    }
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
      return;
    }
    const key = path.join('.');
    if (!path.length || !isSecretValue(v) || !isSecretKey(path, names) || seen.has(v)) return;
    seen.add(v);
    const last = path[path.length - 1];
    // An env var set through the config (env_vars.WANDB_API_KEY) is the same leak under another name.
    const instead =
      ALTERNATIVE[key] ??
      (names.has(last)
        ? `export ${last} in your shell instead (awrl-tui forwards it to the trainer on stdin)`
        : 'pass it through an environment variable');
    out.push({
      severity: 'error',
      code: 'secret-in-config',
      key,
      message: `${key} holds a secret in the config, where it is uploaded, logged and visible in ps; remove it and ${instead}`,
    });
  };
  if (written) walk(written, []);
  walk(cfg, []);
  return out;
};
