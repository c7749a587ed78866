// What Hydra's compose (train.py: hydra.compose(config_name, overrides)) does to the file before
// the trainer sees it: the `# @package X` header moves the whole file under X, the `defaults` list
// is consumed (only `_self_` can be honoured: the launch uploads this one file, so another config
// named there would not be found), and the `hydra` node and `hydra.*` overrides are Hydra's own
// config, dropped from the result (compose's return_hydra_config=False).
import type { Origin, Val } from './values.js';

type MapVal = Extract<Val, { t: 'map' }>;

export interface ComposeProblem {
  code: 'hydra-header' | 'hydra-defaults';
  message: string;
  line: number;
  col: number;
  key?: string;
}

/** Hydra's config, not the trainer's: accepted and dropped. */
export const isHydraKey = (key: string): boolean => key === 'hydra' || key.startsWith('hydra.');

// HydraConf (hydra/conf/__init__.py) as compose sees it: a key's value when set (null: unset),
// FREE where any key goes (logging, launcher and sweeper configs, env_set, callbacks).
const FREE = Symbol('free');
type HydraNode = { [k: string]: HydraNode | typeof FREE | 'set' | 'unset' };
const HYDRA_CONF: HydraNode = {
  mode: 'unset',
  searchpath: 'set',
  output_subdir: 'set',
  verbose: 'set',
  callbacks: FREE,
  hydra_logging: FREE,
  job_logging: FREE,
  launcher: FREE,
  sweeper: FREE,
  defaults: 'set',
  run: { dir: 'set' },
  sweep: { dir: 'set', subdir: 'set' },
  help: { app_name: 'set', header: 'set', footer: 'set', template: 'set' },
  hydra_help: { hydra_help: 'set', template: 'set' },
  overrides: { hydra: 'set', task: 'set' },
  job: {
    name: 'set',
    chdir: 'unset',
    override_dirname: 'set',
    id: 'set',
    num: 'set',
    config_name: 'set',
    env_set: FREE,
    env_copy: 'set',
    config: { override_dirname: { kv_sep: 'set', item_sep: 'set', exclude_keys: 'set' } },
  },
  runtime: { version: 'set', version_base: 'set', cwd: 'set', config_sources: 'set', output_dir: 'set', choices: FREE },
};

/** Hydra's own rules for an override of its config: `=` needs the key, `+` refuses a set one. */
export function hydraOverrideError(kind: string, key: string, text: string): string | null {
  let node: HydraNode | typeof FREE | 'set' | 'unset' = HYDRA_CONF;
  const path = key.split('.').slice(1);
  for (const seg of path) {
    if (node === FREE || node === 'set' || node === 'unset') return null; // inside a free or leaf value
    if (!(seg in node)) {
      if (kind === 'set')
        return `Could not override '${key}'. No match in Hydra's config (HydraConf). To append to it use +${text}`;
      return null;
    }
    node = node[seg];
  }
  if (kind === 'add' && path.length && (node === 'set' || typeof node === 'object'))
    return (
      `Could not append to config. An item is already at '${key}' (Hydra's config); ` +
      `use ++${text.replace(/^\+/, '')} to change it`
    );
  return null;
}

/** Keys Hydra takes out of the composed config. */
export const HYDRA_KEYS = ['defaults', 'hydra'];

/** ConfigSource._get_header_dict over the first 512 characters: `# @key value` lines before the
 *  first other non-empty line. */
export function packageHeader(text: string): { package: string | null; line: number } | ComposeProblem {
  const lines = text.slice(0, 512).split(/\r?\n/);
  let pkg: { package: string | null; line: number } = { package: null, line: 0 };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    if (!/^\s*#\s*@/.test(line)) break;
    const parts = line
      .replace(/^#+/, '')
      .trim()
      .split(' ')
      .filter((x) => x.length > 0);
    if (parts.length < 2)
      return {
        code: 'hydra-header',
        message:
          `Expected header format: KEY VALUE, got '${parts.join(' ')}' ` +
          "(Hydra reads '# @package NAME' on the first lines)",
        line: i + 1,
        col: 1,
      };
    if (parts.length > 2)
      return {
        code: 'hydra-header',
        message: `Too many components in '${parts.join(' ')}' (Hydra reads '# @package NAME')`,
        line: i + 1,
        col: 1,
      };
    if (parts[0] === '@package') pkg = { package: parts[1], line: i + 1 };
  }
  return pkg;
}

/** The `defaults` list: `_self_` only. Anything else names another config file. */
function checkDefaults(v: Val): ComposeProblem[] {
  const at = (x: Val) => (x.origin?.kind === 'file' ? { line: x.origin.line, col: x.origin.col } : { line: 1, col: 1 });
  if (v.t !== 'list')
    return [
      {
        code: 'hydra-defaults',
        message: "defaults must be a list (Hydra's defaults list, e.g. defaults: [_self_])",
        ...at(v),
        key: 'defaults',
      },
    ];
  const out: ComposeProblem[] = [];
  v.a.forEach((e, i) => {
    if (e.t === 'str' && e.v === '_self_') return;
    // Hydra's own groups (`override hydra/job_logging: disabled`) come with Hydra, not from a file.
    if (e.t === 'map' && e.m.size === 1 && /^(override\s+)?(optional\s+)?hydra\/[\w/]+$/.test([...e.m.keys()][0]))
      return;
    const shown =
      e.t === 'str'
        ? e.v
        : e.t === 'map'
          ? [...e.m].map(([k, x]) => `${k}: ${x.t === 'str' ? x.v : x.t}`).join(', ')
          : e.t;
    out.push({
      code: 'hydra-defaults',
      message:
        `defaults entry '${shown}' makes Hydra load another config file from the config's directory; ` +
        'the launch uploads only this file, so the trainer would not find it (and it is not checked here): ' +
        'write its keys into this file',
      ...at(e),
      key: `defaults.${i}`,
    });
  });
  return out;
}

function wrap(root: MapVal, path: string[], origin: Origin | undefined): MapVal {
  let v: MapVal = root;
  for (const seg of [...path].reverse()) v = { t: 'map', m: new Map([[seg, v]]), origin };
  return v;
}

/** The file as Hydra hands it on: moved under its package, its defaults list checked. `root` keeps
 *  `defaults` and `hydra` (the effective YAML is this file); the merge leaves them out (jobConfig). */
export function composeFile(root: MapVal, text: string): { root: MapVal; problems: ComposeProblem[]; moved: boolean } {
  const header = packageHeader(text);
  if ('message' in header) return { root, problems: [header], moved: false };
  const defaults = root.m.get('defaults');
  const problems = defaults ? checkDefaults(defaults) : [];
  const pkg = header.package;
  // A primary config has no group: `_group_` and `_global_` are the root.
  if (pkg === null || pkg === '_global_' || pkg === '_group_' || pkg === '') return { root, problems, moved: false };
  const body: MapVal = { t: 'map', m: new Map([...root.m].filter(([k]) => k !== 'defaults')), origin: root.origin };
  const origin: Origin = { kind: 'file', line: header.line, col: 1 };
  return { root: wrap(body, pkg.replace(/^_global_\./, '').split('.'), origin), problems, moved: true };
}

/** The composed config without Hydra's own keys: what the structured merge sees. */
export function jobConfig(root: MapVal): MapVal {
  if (!HYDRA_KEYS.some((k) => root.m.has(k))) return root;
  return { ...root, m: new Map([...root.m].filter(([k]) => !HYDRA_KEYS.includes(k))) };
}
