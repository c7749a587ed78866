// Which keys of a config hold a credential, and how their values are hidden in everything we print
// (show, diff, argv, error messages). A secret is recognised two ways:
//  - by the key's own name (`wandb_api_key`, `cpu_cluster_token`, `api_key`, …), anywhere;
//  - by an environment variable name the trainer reads as a secret, used as a key (typically in
//    `*.env_vars`): WANDB_API_KEY, SWANLAB_API_KEY, the variable named by
//    `webgym.cpu_cluster_token_env_var` (CPU_CLUSTER_TOKEN) and by `openai_config.openai_api_key_env_var`.
// Only the names are known here; values are replaced, never logged.
import { hasInterpolation, type Val } from './values.js';

/** Keys whose value is a credential (`*_env_var` keys only NAME a variable and are fine). */
export const SECRET_KEY = /(?:^|\.)(?:wandb_api_key|api_key|openai_api_key|cpu_cluster_token|token|password|secret)$/i;

/** What a secret value is printed as. */
export const REDACTED = '<redacted>';

/** Secret env var names that need no config to know (the trainer reads them whatever the config). */
const FIXED_SECRET_ENV = ['WANDB_API_KEY', 'SWANLAB_API_KEY', 'CPU_CLUSTER_TOKEN'];

/** Env var names the trainer reads as secrets for this config (plain JSON: effective or resolved). */
export function secretEnvNames(cfg: Record<string, any> | null | undefined): Set<string> {
  const out = new Set(FIXED_SECRET_ENV);
  const add = (v: unknown) => {
    if (typeof v === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) out.add(v);
  };
  add(cfg?.webgym?.cpu_cluster_token_env_var);
  add(cfg?.openai_config?.openai_api_key_env_var);
  return out;
}

/** Names an override list sets through `*_env_var` keys (before the config is evaluated). */
export function secretEnvNamesInOverrides(overrides: readonly string[]): string[] {
  const out: string[] = [];
  for (const o of overrides) {
    const m = /^[+]*[\w.]*(?:cpu_cluster_token_env_var|openai_api_key_env_var)=(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1$/.exec(
      o,
    );
    if (m) out.push(m[2]);
  }
  return out;
}

/** A dotted key (or path) that holds a secret, given the config's secret env var names. */
export function isSecretKey(key: string | readonly string[], envNames: ReadonlySet<string>): boolean {
  const dottedKey = typeof key === 'string' ? key : key.join('.');
  if (SECRET_KEY.test(dottedKey)) return true;
  const last = dottedKey.slice(dottedKey.lastIndexOf('.') + 1);
  return envNames.has(last);
}

/** A value at a secret key that is a credential. An empty string, null or `???` is not; nor is an
 *  interpolation: `${oc.env:NAME}` asks the trainer's environment (the right way to pass a secret),
 *  and `${a.b}` is judged by the value it resolves to. */
export function isSecretValue(v: unknown): boolean {
  if (typeof v === 'string') return v !== '' && v !== '???' && !hasInterpolation(v);
  return typeof v === 'number' || typeof v === 'bigint';
}

/** A deep copy of plain JSON with every secret value replaced by REDACTED: values at secret keys,
 *  and `values` (known secret texts) wherever they stand (`wandb_api_key: ${webgym.k}` puts the
 *  secret itself under webgym.k). */
export function redactPlain<T>(
  v: T,
  envNames: ReadonlySet<string>,
  values: ReadonlySet<string> = new Set(),
  path: string[] = [],
): T {
  if (Array.isArray(v)) return v.map((x, i) => redactPlain(x, envNames, values, [...path, String(i)])) as T;
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = redactPlain(x, envNames, values, [...path, k]);
    return out as T;
  }
  if (!path.length || !isSecretValue(v)) return v;
  return isSecretKey(path, envNames) || values.has(String(v)) ? (REDACTED as T) : v;
}

const valIsSecret = (v: Val): boolean => (v.t === 'str' ? isSecretValue(v.v) : v.t === 'int' || v.t === 'float');

const valText = (v: Val): string => (v.t === 'str' ? v.v : String((v as { v: unknown }).v));

/** A copy of a typed tree with every secret value (as in redactPlain) replaced by the string REDACTED. */
export function redactVal(
  v: Val,
  envNames: ReadonlySet<string>,
  values: ReadonlySet<string> = new Set(),
  path: string[] = [],
): Val {
  if (v.t === 'map')
    return { ...v, m: new Map([...v.m].map(([k, x]) => [k, redactVal(x, envNames, values, [...path, k])])) };
  if (v.t === 'list') return { ...v, a: v.a.map((x, i) => redactVal(x, envNames, values, [...path, String(i)])) };
  if (!path.length || !valIsSecret(v)) return v;
  return isSecretKey(path, envNames) || values.has(valText(v)) ? { t: 'str', v: REDACTED, origin: v.origin } : v;
}

/** Paths (and values as text) of the secrets in a typed tree (as in redactVal). */
export function secretLeaves(
  v: Val,
  envNames: ReadonlySet<string>,
  values: ReadonlySet<string> = new Set(),
  path: string[] = [],
  out: { path: string[]; text: string }[] = [],
): { path: string[]; text: string }[] {
  if (v.t === 'map') for (const [k, x] of v.m) secretLeaves(x, envNames, values, [...path, k], out);
  else if (v.t === 'list') v.a.forEach((x, i) => secretLeaves(x, envNames, values, [...path, String(i)], out));
  else if (path.length && valIsSecret(v) && (isSecretKey(path, envNames) || values.has(valText(v))))
    out.push({ path, text: valText(v) });
  return out;
}

/** Replace every occurrence of the given secret texts in a message (short texts are left: a
 *  one-character "secret" would garble every message and protects nothing). */
export function scrub(message: string, secrets: readonly string[]): string {
  let m = message;
  for (const s of secrets) if (s.length >= 4) m = m.split(s).join(REDACTED);
  return m;
}
