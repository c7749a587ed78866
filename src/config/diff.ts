// What the overrides change, key by key: compare the resolved config without and with them, so a
// change that flows through an interpolation (seed → sglang.random_seed) shows too.
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

export function diffConfigs(before: Record<string, any>, after: Record<string, any>): ConfigChange[] {
  const a = new Map<string, unknown>();
  const b = new Map<string, unknown>();
  leaves(before, '', a);
  leaves(after, '', b);
  const out: ConfigChange[] = [];
  for (const [k, v] of b) {
    if (!a.has(k)) out.push({ key: k, kind: 'added', after: v });
    else if (JSON.stringify(a.get(k)) !== JSON.stringify(v) || Object.is(a.get(k), -0) !== Object.is(v, -0)) out.push({ key: k, kind: 'changed', before: a.get(k), after: v });
  }
  for (const [k, v] of a) if (!b.has(k)) out.push({ key: k, kind: 'removed', before: v });
  return out;
}

const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : Array.isArray(v) || (v && typeof v === 'object') ? JSON.stringify(v) : pyStr(v));

const SECRET_KEY = /(?:^|\.)(?:wandb_api_key|api_key|openai_api_key|cpu_cluster_token|token|password|secret)$/i;

export function formatChange(c: ConfigChange): string {
  if (SECRET_KEY.test(c.key)) c = { ...c, before: c.before === undefined ? undefined : '<secret>', after: c.after === undefined ? undefined : '<secret>' };
  if (c.kind === 'added') return `+ ${c.key}: ${show(c.after)}`;
  if (c.kind === 'removed') return `- ${c.key}: ${show(c.before)}`;
  return `~ ${c.key}: ${show(c.before)} -> ${show(c.after)}`;
}
