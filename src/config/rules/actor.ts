// Actor and its workers: micro-batch size, importance-weight cap, model path, scheduling specs.
import { pyInt } from '../coerce.js';
import { pyFloatRepr } from '../values.js';
import { get, type Rule, type RuleFinding } from './context.js';

const MIN_TOKENS_PER_MB = 16384;
const MIN_VLM_CACHE_MB = 8192;
// An HF Hub id (`Qwen/Qwen3-VL-8B-Instruct`): one slash, no leading '/', '.', '~'. A relative
// local directory (`models/qwen3-vl`) looks the same: only the target can tell (pre-flight asks).
const HUB_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** `namespace/name` as the Hub spells a model id; also what a relative two-part path looks like. */
export const looksLikeHubId = (path: string): boolean => HUB_ID.test(path);

export const actorRules: Rule = ({ cfg }) => {
  const out: RuleFinding[] = [];
  // null (the dataclass default) is no cap: AReaL splits micro-batches with
  // DEFAULT_MAX_TOKENS_PER_MB = 10**12 then, so a whole trajectory always fits. Only a set cap can be too small.
  const mtpm = get(cfg, 'actor.mb_spec.max_tokens_per_mb');
  if (typeof mtpm === 'number' && mtpm < MIN_TOKENS_PER_MB)
    out.push({
      severity: 'error',
      code: 'max-tokens-per-mb',
      key: 'actor.mb_spec.max_tokens_per_mb',
      message: `actor.mb_spec.max_tokens_per_mb=${mtpm} cannot hold a whole multi-step trajectory; set it to at least ${MIN_TOKENS_PER_MB}`,
    });

  // A float field: printed as Python prints it (1.0, not 1).
  const cap = get(cfg, 'actor.behav_imp_weight_cap');
  if (typeof cap === 'number') {
    if (!(cap > 1))
      out.push({
        severity: 'error',
        code: 'behav-imp-weight-cap',
        key: 'actor.behav_imp_weight_cap',
        message: `actor.behav_imp_weight_cap=${pyFloatRepr(cap)} must be > 1 (e.g. 5.0), or null to disable the cap`,
      });
    if (get(cfg, 'actor.use_decoupled_loss') !== true)
      out.push({
        severity: 'error',
        code: 'behav-imp-weight-cap-decoupled',
        key: 'actor.behav_imp_weight_cap',
        message: 'actor.behav_imp_weight_cap needs actor.use_decoupled_loss: true; set it, or set the cap to null',
      });
  }

  for (const key of ['actor.path', 'test_rollout.base_model_checkpoint']) {
    const p = get(cfg, key);
    if (typeof p === 'string' && looksLikeHubId(p))
      out.push({
        severity: 'warning',
        code: 'hub-model-path',
        key,
        message: `${key} '${p}' looks like a Hugging Face Hub id; SGLang produces garbage on shared-GPU nodes with Hub paths: download it (snapshot_download) and give the local directory (if '${p}' is a directory relative to the workdir on the target, \`awrl-tui preflight\` checks that it exists there)`,
      });
  }

  // TrainEngineConfig / InferenceEngineConfig.__post_init__ refuse any other count.
  for (const group of ['actor', 'rollout', 'ref', 'critic']) {
    const s = get(cfg, `${group}.scheduling_spec`);
    if (Array.isArray(s) && (s.length < 1 || s.length > 2))
      out.push({
        severity: 'error',
        code: 'scheduling-spec-count',
        key: `${group}.scheduling_spec`,
        message: `${group}.scheduling_spec has ${s.length} entries; it takes 1 (worker with embedded engine) or 2 (worker, engine)`,
      });
  }
  const specs = get(cfg, 'actor.scheduling_spec');
  if (Array.isArray(specs)) {
    const env = specs[0]?.env_vars ?? {};
    const raw = env.SGLANG_VLM_CACHE_SIZE_MB;
    // A mapping or list there is already a type-mismatch error (env_vars holds strings).
    if (raw !== null && typeof raw === 'object') return out;
    // SGLang reads it with Python's int() (EnvInt): '1e4' or '10000.0' (what 1e4 in the file
    // becomes in a str field) is not a number of MB to it.
    const mb = raw === undefined ? null : pyInt(String(raw));
    const key =
      raw === undefined ? 'actor.scheduling_spec.0' : 'actor.scheduling_spec.0.env_vars.SGLANG_VLM_CACHE_SIZE_MB';
    const what =
      raw === undefined
        ? 'not set (default 100 MB)'
        : mb === null
          ? `'${raw}', which SGLang cannot read as a whole number of MB`
          : `'${raw}'`;
    if (mb === null || mb < MIN_VLM_CACHE_MB)
      out.push({
        severity: 'warning',
        code: 'sglang-vlm-cache',
        key,
        message: `SGLANG_VLM_CACHE_SIZE_MB is ${what} in actor.scheduling_spec[0].env_vars; set it to at least "${MIN_VLM_CACHE_MB}": a small cache overflows on screenshots and silently yields zero reward`,
      });
  }
  return out;
};
