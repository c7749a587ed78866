// nan and inf where the trainer computes with the number. Nothing in AReaL's config dataclasses checks
// that these are finite (cli_args.py has no __post_init__ for them) and OmegaConf reads `nan`/`.inf`
// as floats, so the run starts, loads the model on every GPU, and then:
// - torch's Adam refuses a nan lr, eps, weight decay or beta (`ValueError: Invalid learning rate: nan`),
//   but takes an infinite lr or weight decay, and the first update makes the weights inf/nan;
// - SGLang refuses a top_p outside (0, 1] on every request, and samples with any temperature
//   (inf: uniform noise; nan: nan probabilities);
// - the PPO loss and advantages are nan from the first step with a nan clip ratio, KL coefficient,
//   reward scaling or bias, discount or GAE lambda (inf: the same, or no learning at all).
// So these are errors. Where inf means "no limit" (gradient_clipping, eps_clip, c_clip, eps_clip_higher,
// reward_clip) only nan is. Any other float field holding nan is a warning: the trainer would read
// it as nan and what it does then is not checked here.
import { pyFloatRepr } from '../values.js';
import { get, type Rule, type RuleFinding } from './context.js';

const ENGINES = ['actor', 'critic', 'ref'];
const LATE = 'but only once the model is loaded on every GPU';

interface Checked {
  key: string;
  /** What the trainer does with nan, and with ±inf (null: inf means "no limit" there). */
  nan: string;
  inf: string | null;
}

function checkedKeys(): Checked[] {
  const out: Checked[] = [];
  const garbage = 'the first update turns the weights inf/nan';
  const adam: [string, string][] = [
    ['lr', garbage],
    ['weight_decay', garbage],
    ['eps', "Adam's updates become 0: the model never learns"],
    ['beta1', `torch's Adam refuses it (betas must be in [0, 1)), ${LATE}`],
    ['beta2', `torch's Adam refuses it (betas must be in [0, 1)), ${LATE}`],
  ];
  for (const e of ENGINES) {
    for (const [k, inf] of adam)
      out.push({ key: `${e}.optimizer.${k}`, nan: `torch's Adam refuses it (ValueError), ${LATE}`, inf });
    out.push({ key: `${e}.optimizer.gradient_clipping`, nan: 'every clipped gradient is nan', inf: null });
  }
  const loss = 'the PPO loss is nan from the first step';
  for (const k of ['kl_ctl', 'reward_scaling', 'reward_bias', 'discount', 'gae_lambda'])
    out.push({ key: `actor.${k}`, nan: loss, inf: 'the loss or the advantages are inf/nan from the first step' });
  out.push({ key: 'actor.temperature', nan: loss, inf: 'every log-probability is that of a uniform guess' });
  // inf here is "no clipping": a choice, not an accident.
  for (const k of ['eps_clip', 'c_clip', 'eps_clip_higher', 'reward_clip'])
    out.push({ key: `actor.${k}`, nan: loss, inf: null });
  for (const g of ['gconfig', 'eval_gconfig']) {
    out.push({
      key: `${g}.temperature`,
      nan: 'SGLang samples from nan probabilities',
      inf: 'SGLang samples uniform noise',
    });
    const topP = 'SGLang refuses every request (top_p must be in (0, 1])';
    out.push({ key: `${g}.top_p`, nan: topP, inf: topP });
  }
  return out;
}
const CHECKED = checkedKeys();
/** Covered here, or by their own rule (actor.ts: behav_imp_weight_cap must be > 1, which nan is not). */
const CHECKED_KEYS = new Set([...CHECKED.map((c) => c.key), 'actor.behav_imp_weight_cap']);

export const finiteRules: Rule = ({ cfg, written, originOf }) => {
  const out: RuleFinding[] = [];
  for (const c of CHECKED) {
    const v = get(cfg, c.key);
    if (typeof v !== 'number' || Number.isFinite(v)) continue;
    // A value copied from another key is said there, once: an interpolation (`${gconfig.top_p}`), or
    // eval_gconfig left null, which PPOConfig.__post_init__ fills with a copy of gconfig.
    const w = written ? get(written, c.key) : undefined;
    if (
      (typeof w === 'string' && w.includes('${')) ||
      (c.key.startsWith('eval_') && originOf(c.key).kind === 'default')
    )
      continue;
    const what = Number.isNaN(v) ? c.nan : c.inf;
    if (what === null) continue;
    out.push({
      severity: 'error',
      code: 'non-finite-number',
      key: c.key,
      message: `${c.key}=${pyFloatRepr(v)} is not a finite number: ${what}; set a finite value`,
    });
  }
  walkNaN(cfg, '', out);
  return out;
};

/** nan in any other float field: a warning naming it. */
function walkNaN(node: unknown, path: string, out: RuleFinding[]): void {
  if (typeof node === 'number') {
    if (Number.isNaN(node) && !CHECKED_KEYS.has(path))
      out.push({
        severity: 'warning',
        code: 'non-finite-number',
        key: path,
        message: `${path}=nan: the trainer reads it as nan (not checked further here); set a number if one is meant`,
      });
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
  for (const [k, v] of entries) walkNaN(v, path ? `${path}.${k}` : k, out);
}
