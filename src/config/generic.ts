// YAML + overrides + interpolation with no schema: what OmegaConf gives for a plain DictConfig.
// Used by the differential tests against real OmegaConf and by callers that show arbitrary YAML.
import { resolveTree, type InterpolationProblem } from './interpolation.js';
import { applyOverride } from './overrides-apply.js';
import { OverrideSyntaxError, parseOverride } from './overrides-grammar.js';
import { any, dict } from './schema/dsl.js';
import { cloneVal, toTyped, type Val } from './values.js';
import { loadYaml } from './yaml-load.js';

export type GenericResult =
  { ok: unknown } | { stage: 'load' | 'override' | 'resolve'; message: string; index?: number };

export function resolveWithoutSchema(text: string, overrides: readonly string[] = []): GenericResult {
  const loaded = loadYaml(text);
  if (!loaded.root)
    return { stage: 'load', message: loaded.problems.map((p) => `${p.line}:${p.col} ${p.message}`).join('; ') };
  const root = cloneVal(loaded.root) as Extract<Val, { t: 'map' }>;
  for (let i = 0; i < overrides.length; i++) {
    try {
      const err = applyOverride(root, parseOverride(overrides[i]), i + 1);
      if (err) return { stage: 'override', index: i + 1, message: err };
    } catch (e) {
      if (e instanceof OverrideSyntaxError) return { stage: 'override', index: i + 1, message: e.message };
      throw e;
    }
  }
  const problems: InterpolationProblem[] = [];
  const resolved = resolveTree(root, dict(any()), problems);
  const errors = problems.filter((p) => p.severity !== 'warning');
  if (errors.length) return { stage: 'resolve', message: errors[0].message };
  return { ok: toTyped(resolved) };
}
