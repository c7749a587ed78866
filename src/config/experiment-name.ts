// `experiment_name: auto` → the name webgym/train.py builds (_infer_experiment_name), numbers
// printed as Python's str() prints them: lr 5e-06, kl 0.01.
import { hasInterpolation, pyFloatRepr } from './values.js';

const pyNum = (v: unknown, isFloat: boolean): string =>
  typeof v === 'number' ? (isFloat ? pyFloatRepr(v) : String(v)) : v === null || v === undefined ? 'None' : String(v);

export function inferExperimentName(cfg: Record<string, any>): string {
  const parts: string[] = [];
  const actor = cfg.actor ?? {};
  // A wrong type here is already a type-mismatch diagnostic; the name must still not throw.
  const modelPath: string = typeof actor.path === 'string' ? actor.path : actor.path == null ? '' : String(actor.path);
  if (modelPath) {
    // Python's str.replace replaces every occurrence.
    const short = modelPath
      .split('/')
      .pop()!
      .toLowerCase()
      .replaceAll('qwen3-vl-', 'qwen3vl')
      .replaceAll('-instruct', '-inst')
      .replaceAll('-thinking', '-think');
    parts.push(short);
  }
  const critic = actor.critic_loss ?? 'none';
  const loss = actor.actor_loss ?? 'grpo';
  if (critic === 'archer' && loss === 'fbc') parts.push('archer-fbc');
  else if (loss === 'fbc') parts.push('fbc');
  else if (critic !== 'none') parts.push(`${critic}-${loss}`);
  else parts.push(loss);
  parts.push(`offpolicy${pyNum(cfg.rollout?.max_head_offpolicyness ?? 1, false)}`);
  const kl = actor.kl_ctl ?? 0.0;
  parts.push(kl === 0 ? 'nokl' : `kl${pyNum(kl, true)}`);
  parts.push(actor.recompute_logprob ? 'prox' : 'noprox');
  const batch = cfg.rollout?.consumer_batch_size ?? cfg.train_dataset?.batch_size ?? '?';
  parts.push(`batch${pyNum(batch, false)}`);
  parts.push(`k${pyNum(cfg.gconfig?.n_samples ?? 1, false)}`);
  const lr = actor.optimizer?.lr;
  if (lr !== null && lr !== undefined) parts.push(`lr${pyNum(lr, true)}`);
  return parts.join('-');
}

export function resolveExperimentName(cfg: Record<string, any>): string | null {
  const n = cfg.experiment_name;
  if (typeof n !== 'string' || n === '???') return null; // '???': mandatory and unset
  return n === 'auto' ? inferExperimentName(cfg) : n;
}

/** The keys `experiment_name: auto` is built from (inferExperimentName reads these). */
const NAME_INPUTS = [
  'actor.path',
  'actor.critic_loss',
  'actor.actor_loss',
  'rollout.max_head_offpolicyness',
  'actor.kl_ctl',
  'actor.recompute_logprob',
  'rollout.consumer_batch_size',
  'train_dataset.batch_size',
  'gconfig.n_samples',
  'actor.optimizer.lr',
];

const at = (cfg: Record<string, any>, key: string): unknown =>
  key.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), cfg);

/** When the experiment name depends on a value only the target knows (`${oc.env:MODEL}`, left as
 *  text here): the key and its text. The name is then unknown here, not the text spliced in. */
export function nameDependsOnTarget(cfg: Record<string, any>): { key: string; text: string } | null {
  const n = cfg.experiment_name;
  if (typeof n === 'string' && hasInterpolation(n)) return { key: 'experiment_name', text: n };
  if (n !== 'auto') return null;
  for (const key of NAME_INPUTS) {
    const v = at(cfg, key);
    if (typeof v !== 'string' || !hasInterpolation(v)) continue;
    // Only the last path component of actor.path is in the name: `${oc.env:ROOT}/qwen` is not unknown.
    if (key === 'actor.path' && v.lastIndexOf('}') < v.lastIndexOf('/')) continue;
    return { key, text: v };
  }
  return null;
}
