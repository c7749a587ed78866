// SGLang must fit a whole request and must see images.
import { get, type Rule, type RuleFinding } from './context.js';

export const inferenceRules: Rule = ({ cfg }) => {
  const out: RuleFinding[] = [];
  const ctx = get(cfg, 'sglang.context_length');
  const max = get(cfg, 'gconfig.max_tokens');
  if (typeof ctx === 'number' && typeof max === 'number' && ctx < max)
    out.push({
      severity: 'error',
      code: 'context-length',
      key: 'sglang.context_length',
      message: `sglang.context_length=${ctx} is shorter than gconfig.max_tokens=${max}; raise it to at least ${max} or lower gconfig.max_tokens`,
    });
  if (get(cfg, 'sglang.enable_multimodal') === false && String(get(cfg, 'allocation_mode') ?? '').includes('sglang'))
    out.push({
      severity: 'warning',
      code: 'multimodal',
      key: 'sglang.enable_multimodal',
      message: 'sglang.enable_multimodal is false; the vision agent needs it: set sglang.enable_multimodal: true',
    });
  return out;
};
