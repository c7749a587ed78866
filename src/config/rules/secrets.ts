// A secret written into the config ends up in the uploaded file, in the resolved config.yaml the
// trainer writes next to its logs, and (as an override) in `ps`: ask for the env var instead.
// The finding names the key, never the value.
import type { Rule, RuleFinding } from './context.js';

/** Keys whose value is a credential (`*_env_var` keys only NAME a variable and are fine). */
export const SECRET_KEY = /(?:^|\.)(?:wandb_api_key|api_key|openai_api_key|cpu_cluster_token|token|password|secret)$/i;

const ALTERNATIVE: Record<string, string> = {
  'stats_logger.wandb.wandb_api_key': 'export WANDB_API_KEY instead',
  'webgym.cpu_cluster_token': 'export the variable named by webgym.cpu_cluster_token_env_var (CPU_CLUSTER_TOKEN) instead',
  'stats_logger.swanlab.api_key': 'export SWANLAB_API_KEY instead',
};

export const secretRules: Rule = ({ cfg }) => {
  const out: RuleFinding[] = [];
  const walk = (v: unknown, path: string[]) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
      return;
    }
    const key = path.join('.');
    if (typeof v === 'string' && v !== '' && SECRET_KEY.test(key))
      out.push({ severity: 'error', code: 'secret-in-config', key, message: `${key} holds a secret in the config, where it is uploaded, logged and visible in ps; remove it and ${ALTERNATIVE[key] ?? 'pass it through an environment variable'}` });
  };
  walk(cfg, []);
  return out;
};
