// The Config screen's data: the config engine's evaluation turned into rows (value, type, origin),
// diagnostics, the diff against the file, the launch argv and the secrets by name. Pure: text in,
// view out; the session calls it on every keystroke of an edit.
import {
  diffConfigs,
  evaluateConfig,
  formatOverrideValue,
  type ConfigEvaluation,
  type KeyOrigin,
  type Val,
} from '../config/index.js';
import { pyFloatRepr } from '../config/values.js';
import type { ConfigDiagnostic, ConfigRow, ConfigView } from './types.js';
import { forwardingFor } from '../runs/forwarding.js';

export interface ConfigSource {
  fileName: string;
  text: string;
  overrides: string[];
  envNames: ReadonlySet<string>;
  target: string | null;
  /** The target's backend: auto-resume is offered for Slurm only. */
  targetBackend?: 'direct' | 'slurm' | null;
  /** Where the config will be uploaded (shown in the argv). */
  remoteConfigPath: string;
  python?: string;
  /** The target's --forward-env / --no-forward-env (the launch's forwarding decision). */
  forward?: { add: string[]; drop: string[] };
}

/** The dotted key an override sets ('++a.b=1' -> 'a.b', '~a.b' -> 'a.b'). */
export function overrideKey(text: string): string {
  const body = text.replace(/^(\+\+|\+|~)/, '');
  const eq = body.indexOf('=');
  return (eq < 0 ? body : body.slice(0, eq)).trim();
}

/** The override list with `key` set to `text` (replacing any override of that key). */
export function withValue(overrides: string[], key: string, valueText: string): string[] {
  const line = `++${key}=${valueText}`;
  const at = overrides.findIndex((o) => overrideKey(o) === key && !o.startsWith('~'));
  if (at < 0) return [...overrides, line];
  const next = [...overrides];
  next[at] = line;
  return next;
}

/** Text typed for a value, made into override syntax the way the schema types the key: a string
 *  field gets Hydra quotes (so `5e-6` or `true` stay strings); other types are passed as typed. */
export function typedValueText(rowType: ConfigRow['type'], text: string): string {
  if (rowType !== 'string') return text;
  if (/^'.*'$|^".*"$/s.test(text) || text.includes('${')) return text;
  return formatOverrideValue(text);
}

function originText(o: KeyOrigin): string {
  return o.kind === 'file' ? `file:${o.line}` : o.kind === 'override' ? `override ${o.index}` : 'default';
}

function scalarText(v: Val): string {
  switch (v.t) {
    case 'int':
      return String(v.v);
    case 'float':
      return pyFloatRepr(v.v);
    case 'str':
      return v.v;
    case 'bool':
      return v.v ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'missing':
      return '???';
    case 'list':
      return `[${v.a.map(scalarText).join(', ')}]`;
    case 'map':
      return `{${[...v.m].map(([k, x]) => `${k}: ${scalarText(x)}`).join(', ')}}`;
  }
}

const TYPE: Record<Val['t'], ConfigRow['type']> = {
  int: 'int',
  float: 'float',
  str: 'string',
  bool: 'bool',
  null: 'null',
  missing: 'other',
  list: 'list',
  map: 'dict',
};

function isScalarList(v: Val): boolean {
  return v.t === 'list' && v.a.every((x) => x.t !== 'map' && x.t !== 'list');
}

function walk(v: Val, path: string[], depth: number, ev: ConfigEvaluation, out: ConfigRow[]): void {
  const children: [string, Val][] = v.t === 'map' ? [...v.m] : v.t === 'list' ? v.a.map((x, i) => [String(i), x]) : [];
  for (const [k, x] of children) {
    const key = [...path, k].join('.');
    const section = (x.t === 'map' && x.m.size > 0) || (x.t === 'list' && !isScalarList(x));
    out.push({
      key,
      depth,
      label: k,
      value: section ? '' : scalarText(x),
      type: section ? 'section' : TYPE[x.t],
      origin: originText(ev.originOf(key)),
      leaf: !section,
    });
    if (section) walk(x, [...path, k], depth + 1, ev, out);
  }
}

function where(d: ConfigEvaluation['diagnostics'][number], fileName: string): string {
  if (d.override) return `override ${d.override.index} '${d.override.text}'`;
  if (d.line !== undefined) return `${d.file ?? fileName}:${d.line}:${d.col ?? 1}`;
  return d.file ?? fileName;
}

function show(v: unknown): string {
  if (v === undefined) return '(absent)';
  if (typeof v === 'string') return v;
  return JSON.stringify(v) ?? String(v);
}

// The file without overrides does not change while the user types: evaluate it once.
let lastBaseline: { fileName: string; text: string; envNames: ReadonlySet<string>; ev: ConfigEvaluation } | null = null;
function baselineOf(src: ConfigSource): ConfigEvaluation {
  const b = lastBaseline;
  if (b && b.fileName === src.fileName && b.text === src.text && b.envNames === src.envNames) return b.ev;
  const ev = evaluateConfig({ fileName: src.fileName, text: src.text, overrides: [], envNames: src.envNames });
  lastBaseline = { fileName: src.fileName, text: src.text, envNames: src.envNames, ev };
  return ev;
}

export interface BuiltConfig {
  view: ConfigView;
  evaluation: ConfigEvaluation;
}

export function buildConfigView(
  src: ConfigSource,
  draft: { key: string; text: string } | null,
  rowTypes?: Map<string, ConfigRow['type']>,
): BuiltConfig {
  const overrides = draft
    ? withValue(src.overrides, draft.key, typedValueText(rowTypes?.get(draft.key) ?? 'other', draft.text))
    : src.overrides;
  const ev = evaluateConfig({ fileName: src.fileName, text: src.text, overrides, envNames: src.envNames });
  const baseline = src.overrides.length || draft ? baselineOf(src) : ev;
  const rows: ConfigRow[] = [];
  if (ev.resolvedTree) walk(ev.resolvedTree, [], 0, ev, rows);
  const diagnostics: ConfigDiagnostic[] = ev.diagnostics.map((d) => ({
    severity: d.severity,
    code: d.code,
    message: d.message,
    key: d.key,
    where: where(d, src.fileName),
  }));
  const diff =
    baseline.resolved && ev.resolved
      ? diffConfigs(baseline.resolved, ev.resolved).map((c) => ({
          key: c.key,
          before: show(c.before),
          after: show(c.after),
        }))
      : [];
  let argv: string[] = [];
  if (!ev.hasErrors) {
    try {
      argv = ev.launchArgv({ remoteConfigPath: src.remoteConfigPath, python: src.python });
    } catch {
      argv = [];
    }
  }
  // The very decision the launch carries out (forwarded.ts); a dropped name is not listed.
  const forwarding = ev.resolved
    ? forwardingFor(
        ev.resolved,
        { forwardEnv: src.forward?.add ?? [], noForwardEnv: src.forward?.drop ?? [] },
        src.envNames,
      )
    : null;
  const secrets = (forwarding?.secrets ?? [])
    .filter((s) => !s.dropped)
    .map((s) => ({ name: s.name, required: s.required, present: src.envNames.has(s.name) }));
  return {
    evaluation: ev,
    view: {
      fileName: src.fileName,
      overrides: src.overrides,
      rows,
      diagnostics,
      hasErrors: ev.hasErrors,
      diff,
      argv,
      secrets,
      target: src.target,
      targetBackend: src.targetBackend ?? null,
      draft,
    },
  };
}
