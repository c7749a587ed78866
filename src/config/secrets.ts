// Which environment variables the trainer reads as secrets for a config (names only, never values).

export interface SecretNeed {
  name: string;
  required: boolean;
  why: string;
}

export function requiredSecretNames(resolved: Record<string, any>): SecretNeed[] {
  const out: SecretNeed[] = [];
  if (resolved?.stats_logger?.wandb?.mode === 'online')
    out.push({ name: 'WANDB_API_KEY', required: true, why: 'stats_logger.wandb.mode is online' });
  const wg = resolved?.webgym;
  if (wg && typeof wg === 'object' && !wg.cpu_cluster_token) {
    const name =
      typeof wg.cpu_cluster_token_env_var === 'string' && wg.cpu_cluster_token_env_var
        ? wg.cpu_cluster_token_env_var
        : 'CPU_CLUSTER_TOKEN';
    out.push({ name, required: true, why: 'Omniboxes browser-cluster token (webgym.cpu_cluster_token_env_var)' });
  }
  const oa = resolved?.openai_config;
  if (oa && typeof oa === 'object' && typeof oa.openai_api_key_env_var === 'string' && oa.openai_api_key_env_var)
    out.push({
      name: oa.openai_api_key_env_var,
      required: false,
      why: 'evaluator API key (openai_config.openai_api_key_env_var); without it the reward falls back to rule-based',
    });
  return out;
}
