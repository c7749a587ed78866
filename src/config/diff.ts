// What the overrides change, key by key: compare the resolved config without and with them, so a
// change that flows through an interpolation (seed → sglang.random_seed) shows too.
import { isSecretKey, isSecretValue, REDACTED, SECRET_KEY, secretEnvNames } from './secret-keys.js';
import { pyStr } from './values.js';

export interface ConfigChange {
  key: string;
  kind: 'changed' | 'added' | 'removed';
  before?: unknown;
  after?: unknown;
}

function leaves(v: unknown, prefix: string, out: Map<string, unknown>): void {
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) leaves(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(v) && v.length) {
    v.forEach((x, i) => leaves(x, `${prefix}.${i}`, out));
  } else out.set(prefix, v);
}

/** Changes between two configs; a secret's values come out as <redacted> (a change is still shown). */
export function diffConfigs(before: Record<string, any>, after: Record<string, any>): ConfigChange[] {
  const names = secretEnvNames(before);
  for (const n of secretEnvNames(after)) names.add(n);
  const hide = (key: string, v: unknown) => (isSecretValue(v) && isSecretKey(key, names) ? REDACTED : v);
  return rawDiff(before, after).map((c) => ({
    ...c,
    ...('before' in c ? { before: hide(c.key, c.before) } : {}),
    ...('after' in c ? { after: hide(c.key, c.after) } : {}),
  }));
}

function rawDiff(before: Record<string, any>, after: Record<string, any>): ConfigChange[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  leaves(before, '', a);
  leaves(after, '', b);
  const out: ConfigChange[] = [];
  for (const [k, v] of b) {
    if (!a.has(k)) out.push({ key: k, kind: 'added', after: v });
    else if (JSON.stringify(a.get(k)) !== JSON.stringify(v) || Object.is(a.get(k), -0) !== Object.is(v, -0))
      out.push({ key: k, kind: 'changed', before: a.get(k), after: v });
  }
  for (const [k, v] of a) if (!b.has(k)) out.push({ key: k, kind: 'removed', before: v });
  return out;
}

const show = (v: unknown) =>
  v === REDACTED
    ? REDACTED
    : typeof v === 'string'
      ? JSON.stringify(v)
      : Array.isArray(v) || (v && typeof v === 'object')
        ? JSON.stringify(v)
        : pyStr(v);

export function formatChange(c: ConfigChange): string {
  // diffConfigs already hid secrets; a change built by hand under a secret key is hidden here.
  const hide = (v: unknown) => (SECRET_KEY.test(c.key) && isSecretValue(v) ? REDACTED : v);
  c = { ...c, before: hide(c.before), after: hide(c.after) };
  if (c.kind === 'added') return `+ ${c.key}: ${show(c.after)}`;
  if (c.kind === 'removed') return `- ${c.key}: ${show(c.before)}`;
  return `~ ${c.key}: ${show(c.before)} -> ${show(c.after)}`;
}
