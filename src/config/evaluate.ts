// The pipeline: YAML (typed, positioned) → Hydra overrides → structured merge onto the dataclass
// defaults → interpolation → rules. Every stage reports Diagnostics with the position of the key
// or the override that caused them.
import { maskOverride, placed, type Diagnostic } from './diagnostics.js';
import { renderEffectiveYaml, type AppliedOverride } from './effective-yaml.js';
import { composeFile, hydraOverrideError, isHydraKey, jobConfig } from './hydra-compose.js';
import { buildLaunchArgv } from './launch-argv.js';
import { expandedSize, resolveTree, type InterpolationProblem } from './interpolation.js';
import { mergeField, type MergeProblem } from './merge.js';
import { applyOverride } from './overrides-apply.js';
import { OverrideSyntaxError, parseOverride, type ParsedOverride } from './overrides-grammar.js';
import { nameDependsOnTarget, resolveExperimentName } from './experiment-name.js';
import { runRules } from './rules/index.js';
import { webGymConfig } from './schema/experiment.js';
import {
  isSecretKey,
  redactPlain,
  redactVal,
  REDACTED,
  scrub,
  secretEnvNames,
  secretEnvNamesInOverrides,
  secretLeaves,
} from './secret-keys.js';
import { cloneVal, toPlain, type Origin, type Val } from './values.js';
import { emitYaml } from './yaml-emit.js';
import { loadYaml, MAX_CONFIG_VALUES } from './yaml-load.js';

export interface ConfigInput {
  fileName: string;
  text: string;
  overrides?: string[];
  /** Names of environment variables that are set (values never needed). */
  envNames?: ReadonlySet<string> | string[];
}

export type KeyOrigin =
  { kind: 'file'; line: number; col: number } | { kind: 'override'; index: number } | { kind: 'default' };

export interface ConfigEvaluation {
  diagnostics: Diagnostic[];
  hasErrors: boolean;
  resolved: Record<string, any> | null;
  experimentName: string | null;
  /** Why experimentName is null though the config names one: it depends on the target's environment. */
  experimentNameUnknown: string | null;
  trialName: string | null;
  /** The file with the overrides written in (comments, blank lines kept), or the resolved tree;
   *  secret values are <redacted> in both. */
  effectiveYaml(opts?: { resolved?: boolean }): string;
  originOf(key: string): KeyOrigin;
  /** The trainer's argv; an override of a secret key shows <redacted> (such a config is an error). */
  launchArgv(opts: { remoteConfigPath: string; python?: string }): string[];
  /** Dotted keys that hold a secret value (in the file or an override); their values are never shown. */
  secretKeys: string[];
  /** A copy of plain JSON of this config (resolved or effective) with secret values <redacted>. */
  redact<T>(plain: T): T;
  /** The overrides as given, with secret values <redacted>: what messages may quote. */
  maskedOverrides: string[];
  /** The typed resolved tree (floats stay floats), for callers that must tell 5 from 5.0, and for
   *  display: secret values are <redacted> here (`resolved` keeps them, for the rules). */
  resolvedTree: Val | null;
  /** Overrides that parsed and applied, in order. */
  overrides: ParsedOverride[];
  /** File + overrides as plain JSON, before defaults and interpolation, secrets <redacted>; null if fatal. */
  effective: Record<string, any> | null;
  /** The same as a typed tree (ints beyond 2^53 exact, floats kept floats), secrets <redacted>. */
  effectiveTree: Val | null;
}

type MapVal = Extract<Val, { t: 'map' }>;

const OVERRIDE_CODES: [RegExp, string][] = [
  [/^Could not override/, 'override-missing-key'],
  [/^Could not append/, 'override-exists'],
  [/^Could not delete/, 'override-delete'],
];

function nodeAt(root: Val | null, key: string): Val | undefined {
  let n: Val | undefined = root ?? undefined;
  if (key === '') return n;
  for (const s of key.split('.')) {
    if (!n) return undefined;
    if (n.t === 'map') n = n.m.get(s);
    else if (n.t === 'list' && /^\d+$/.test(s)) n = n.a[Number(s)];
    else return undefined;
  }
  return n;
}

/** Merge + resolve; returns the typed resolved tree and the problems met on the way. */
function mergeAndResolve(
  root: MapVal,
  envNames: ReadonlySet<string>,
): { merged: Val; resolved: Val; merge: MergeProblem[]; interp: InterpolationProblem[] } {
  const merge: MergeProblem[] = [];
  const merged = mergeField(webGymConfig, root, '', merge, true);
  const interp: InterpolationProblem[] = [];
  const resolved = resolveTree(merged, webGymConfig, interp, envNames);
  // PPOConfig.__post_init__: eval_gconfig defaults to a copy of gconfig.
  if (resolved.t === 'map' && resolved.m.get('eval_gconfig')?.t === 'null') {
    const g = resolved.m.get('gconfig');
    if (g) resolved.m.set('eval_gconfig', { ...cloneVal(g), origin: { kind: 'default' } });
  }
  return { merged, resolved, merge, interp };
}

function missingLeaves(v: Val, path: string[], out: { key: string; origin?: Origin }[]): void {
  if (v.t === 'missing') out.push({ key: path.join('.'), origin: v.origin });
  else if (v.t === 'map') for (const [k, x] of v.m) missingLeaves(x, [...path, k], out);
  else if (v.t === 'list') v.a.forEach((x, i) => missingLeaves(x, [...path, String(i)], out));
}

export function evaluateConfig(input: ConfigInput): ConfigEvaluation {
  const { fileName, text } = input;
  const rawOverrides = input.overrides ?? [];
  const loaded = loadYaml(text);
  // Secret env var names used as keys (env_vars.GEMINI_API_KEY) are secrets too: the names come
  // from the config, so look at the file and at overrides of the *_env_var keys first.
  const secretNames = secretEnvNames(loaded.root ? (toPlain(loaded.root) as Record<string, any>) : null);
  for (const n of secretEnvNamesInOverrides(rawOverrides)) secretNames.add(n);
  // Shown in messages with secret values masked.
  const overrideTexts = rawOverrides.map((o) => maskOverride(o, secretNames));
  const envNames =
    input.envNames instanceof Set ? (input.envNames as ReadonlySet<string>) : new Set(input.envNames ?? []);
  const diags: Diagnostic[] = [];
  const put = (d: Omit<Diagnostic, 'file' | 'line' | 'col' | 'override'>, origin?: Origin) =>
    diags.push(placed(d, origin, fileName, overrideTexts));

  for (const p of loaded.problems) {
    // A loader message may quote the bad value (`invalid !!int value '…'`): not a secret's.
    const message = p.key && isSecretKey(p.key, secretNames) ? p.message.replace(/'.*'/s, `'${REDACTED}'`) : p.message;
    diags.push({
      severity: 'error',
      code: 'yaml-syntax',
      message,
      key: p.key,
      file: fileName,
      line: p.line,
      col: p.col,
    });
  }

  const applied: ParsedOverride[] = [];
  const appliedAt: AppliedOverride[] = [];
  // Hydra's compose first: the package header, the defaults list (hydra-compose.ts).
  const composed = loaded.root ? composeFile(cloneVal(loaded.root) as MapVal, text) : null;
  for (const p of composed?.problems ?? [])
    diags.push({
      severity: 'error',
      code: p.code,
      message: p.message,
      key: p.key,
      file: fileName,
      line: p.line,
      col: p.col,
    });
  if (composed?.moved) {
    const only = [...composed.root.m.keys()][0];
    diags.push({
      severity: 'warning',
      code: 'hydra-package',
      message: `the '# @package' header makes Hydra move the whole file under '${only}' (the trainer then reads every key as ${only}.<key>); remove the header to keep the keys at the top`,
      file: fileName,
      line: composed.root.origin?.kind === 'file' ? composed.root.origin.line : 1,
      col: 1,
    });
  }
  const root: MapVal | null = composed ? composed.root : null;
  rawOverrides.forEach((raw, i) => {
    const index = i + 1;
    const t = overrideTexts[i];
    // Messages quote the override; never with a secret's value.
    const secretValue = t !== raw ? raw.slice(raw.indexOf('=') + 1) : '';
    const mask = (m: string) => (secretValue ? m.split(secretValue).join(REDACTED) : m);
    let o: ParsedOverride;
    try {
      o = parseOverride(raw);
    } catch (e) {
      if (!(e instanceof OverrideSyntaxError)) throw e;
      // A function's message quotes its argument ('int(abc)', … 'abc'): for a secret, any quoted part.
      const m = secretValue ? e.message.replace(/'[^'\n]*'/g, `'${REDACTED}'`) : e.message;
      diags.push({
        severity: 'error',
        code: 'override-syntax',
        message: mask(/column \d+/.test(m) ? m : `${m} (column ${e.col})`),
        override: { index, text: t },
      });
      return;
    }
    if (!root) return;
    // `hydra.job.name=x`, `+hydra.foo=1`: Hydra's own config, which the trainer accepts and drops from
    // its config; passed on in the argv, not applied to the tree.
    if (isHydraKey(o.key)) {
      // The file's own hydra: node adds keys to Hydra's config.
      const inFile = nodeAt(root, o.key) !== undefined;
      const herr = inFile && o.kind === 'set' ? null : hydraOverrideError(o.kind, o.key, t);
      if (herr)
        diags.push({
          severity: 'error',
          code: o.kind === 'add' ? 'override-exists' : 'override-missing-key',
          message: mask(herr),
          key: o.key,
          override: { index, text: t },
        });
      else applied.push(o);
      return;
    }
    const err = applyOverride(root, o, index);
    if (err) {
      const code = OVERRIDE_CODES.find(([re]) => re.test(err))?.[1] ?? 'override';
      diags.push({ severity: 'error', code, message: mask(err), key: o.key, override: { index, text: t } });
      return;
    }
    applied.push(o);
    appliedAt.push({ override: o, index });
  });

  let merged: Val | null = null;
  let resolvedTree: Val | null = null;
  let resolved: Record<string, any> | null = null;
  // Interpolations of interpolated lists copy like an alias bomb: bounded as the file is.
  const maxResolved = 4 * MAX_CONFIG_VALUES;
  const resolvedR = root ? mergeAndResolve(jobConfig(root), envNames) : null;
  if (resolvedR && expandedSize(resolvedR.resolved, maxResolved) > maxResolved) {
    diags.push({
      severity: 'error',
      code: 'interpolation',
      message: `the resolved config has more than ${maxResolved.toLocaleString('en')} values (interpolations of lists that interpolate lists, like an alias bomb): refused, the cockpit reads at most that many. The trainer's OmegaConf would blow up on it too: it copies the value at every interpolation`,
      file: fileName,
    });
  } else if (resolvedR && root) {
    const r = resolvedR;
    merged = r.merged;
    resolvedTree = r.resolved;
    for (const p of r.merge) put({ severity: 'error', code: p.code, message: p.message, key: p.key }, p.origin);
    // `seed=1.5` fails at seed and again at every `${seed}` copy (sglang.random_seed, …): one
    // mistake, one error, where it was made (the trainer too stops at the first).
    const failed = new Set(r.merge.map((p) => p.key));
    const missingNow: { key: string; origin?: Origin }[] = [];
    missingLeaves(r.resolved, [], missingNow);
    for (const m of missingNow) failed.add(m.key);
    for (let grew = true; grew;) {
      grew = false;
      for (const p of r.interp) if (p.from && failed.has(p.from) && !failed.has(p.key)) grew = !!failed.add(p.key);
    }
    for (const p of r.interp) {
      if (p.from && failed.has(p.from)) continue;
      put({ severity: p.severity ?? 'error', code: p.code, message: p.message, key: p.key }, p.origin);
    }
    const missing: { key: string; origin?: Origin }[] = [];
    missingLeaves(r.resolved, [], missing);
    for (const m of missing)
      put(
        {
          severity: 'error',
          code: 'missing-value',
          key: m.key,
          message: `${m.key} is mandatory ('???') and has no value; set it in the file or with ++${m.key}=…`,
        },
        m.origin,
      );
    resolved = toPlain(r.resolved) as Record<string, any>;
  }

  const originOf = (key: string): KeyOrigin => {
    let k = key;
    // A key with no position of its own is reported at its nearest positioned parent.
    for (;;) {
      const n = nodeAt(merged, k);
      const o = n?.origin;
      if (o && o.kind !== 'default') return o;
      if (n && o?.kind === 'default') return { kind: 'default' };
      if (!k.includes('.')) return { kind: 'default' };
      k = k.slice(0, k.lastIndexOf('.'));
    }
  };

  if (resolved) {
    const written = root ? (toPlain(root) as Record<string, any>) : undefined;
    for (const f of runRules({ cfg: resolved, originOf, envNames, written }))
      put({ severity: f.severity, code: f.code, message: f.message, key: f.key }, originOf(f.key));
  }

  // The last word on secrets: whatever a message quotes, a secret value is not in it.
  if (resolvedTree) for (const n of secretEnvNames(toPlain(resolvedTree) as Record<string, any>)) secretNames.add(n);
  // Secrets by key in the resolved tree, then everywhere their values are written (a secret key
  // may get its value through an interpolation from a key of any name).
  const resolvedSecrets = resolvedTree ? secretLeaves(resolvedTree, secretNames) : [];
  const secretValues = new Set(resolvedSecrets.map((s) => s.text).filter((t) => t.length >= 4));
  const writtenSecrets = root ? secretLeaves(root, secretNames, secretValues) : [];
  // Where a secret is written, then copies an interpolation made elsewhere (same value, not listed again).
  const secrets = [...writtenSecrets, ...resolvedSecrets.filter((s) => !writtenSecrets.some((w) => w.text === s.text))];
  for (const s of secrets) if (s.text.length >= 4) secretValues.add(s.text);
  const secretTexts = [...secretValues].sort((a, b) => b.length - a.length);
  if (secretTexts.length) for (const d of diags) d.message = scrub(d.message, secretTexts);
  let experimentName: string | null = null;
  let experimentNameUnknown: string | null = null;
  try {
    experimentName = resolved ? resolveExperimentName(resolved) : null;
  } catch {
    // A config that cannot name its experiment has diagnostics saying why; no name, no crash.
  }
  const dep = resolved && experimentName ? nameDependsOnTarget(resolved) : null;
  if (dep) {
    // `${oc.env:MODEL}-grpo-…` is not the name the trainer will use: unknown until the target resolves it.
    experimentName = null;
    const text = secretTexts.length ? scrub(dep.text, secretTexts) : dep.text;
    experimentNameUnknown = `the experiment name depends on the target's environment: ${dep.key} is '${text}', which the trainer resolves where it runs`;
    put(
      {
        severity: 'warning',
        code: 'experiment-name-unknown',
        key: dep.key,
        message: `${experimentNameUnknown}; it is unknown here (set ${dep.key} to a plain value to know it before the launch)`,
      },
      originOf(dep.key),
    );
  }
  diags.sort(byPosition);
  const trialName =
    resolved && typeof resolved.trial_name === 'string' && resolved.trial_name !== '???' ? resolved.trial_name : null;
  const isSecret = (key: string) => isSecretKey(key, secretNames);
  const shownTree = resolvedTree && secrets.length ? redactVal(resolvedTree, secretNames, secretValues) : resolvedTree;
  let effectiveText: string | null = null;
  return {
    secretKeys: [...new Set(secrets.map((s) => s.path.join('.')))],
    redact: (plain) => redactPlain(plain, secretNames, secretValues),
    maskedOverrides: overrideTexts,
    diagnostics: diags,
    hasErrors: diags.some((d) => d.severity === 'error'),
    resolved,
    resolvedTree: shownTree,
    experimentName,
    experimentNameUnknown,
    trialName,
    overrides: applied,
    effective: root ? redactPlain(toPlain(root) as Record<string, any>, secretNames, secretValues) : null,
    effectiveTree: root ? redactVal(root, secretNames, secretValues) : null,
    originOf,
    effectiveYaml(opts) {
      if (opts?.resolved) return shownTree ? emitYaml(shownTree) : '';
      if (!root) return text;
      // A file Hydra moves under its package is written as the tree it becomes (header dropped).
      if (composed?.moved) return emitYaml(redactVal(root, secretNames, secretValues));
      effectiveText ??= renderEffectiveYaml({
        text,
        doc: loaded.doc,
        overrides: appliedAt,
        expected: redactVal(root, secretNames, secretValues) as MapVal,
        secretPaths: writtenSecrets.map((s) => s.path),
      });
      return effectiveText;
    },
    launchArgv(opts) {
      return buildLaunchArgv(applied, opts, isSecret);
    },
  };
}

/** File diagnostics by line/col, then override ones by index, then those with no position. */
function byPosition(a: Diagnostic, b: Diagnostic): number {
  const rank = (d: Diagnostic) => (d.line !== undefined ? 0 : d.override ? 1 : 2);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return a.line! - b.line! || (a.col ?? 0) - (b.col ?? 0);
  if (ra === 1) return a.override!.index - b.override!.index;
  return 0;
}
