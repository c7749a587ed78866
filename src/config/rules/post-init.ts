// What the trainer refuses after the merge: the dataclasses' __post_init__ (run by
// OmegaConf.to_object in load_expr_config), StatsLogger.get_log_path and name_resolve.reconfigure,
// and names that cannot be one directory name on the target.
import { nameDependsOnTarget, resolveExperimentName } from '../experiment-name.js';
import { pathNameProblem, wandbIdNameProblem } from '../path-names.js';
import { hasInterpolation } from '../values.js';
import { get, type Rule, type RuleFinding } from './context.js';

const ENGINES = ['actor', 'ref', 'critic']; // TrainEngineConfig and its subclasses

/** A name as a message may quote it: control characters escaped, a very long one cut. */
function shown(s: string): string {
  const esc = JSON.stringify(s).slice(1, -1);
  return esc.length > 60 ? `${esc.slice(0, 40)}…(${s.length} characters)` : esc;
}

function logPathRule(cfg: Record<string, any>): RuleFinding[] {
  // StatsLogger.get_log_path: `if not fileroot or not experiment_name or not trial_name`.
  const message = 'ValueError: fileroot, experiment_name, and trial_name must be provided.';
  const out: RuleFinding[] = [];
  for (const [own, top] of [
    ['experiment_name', 'experiment_name'],
    ['trial_name', 'trial_name'],
    ['fileroot', 'cluster.fileroot'],
  ]) {
    const v = get(cfg, `stats_logger.${own}`);
    if (v !== '') continue;
    const key = get(cfg, top) === '' ? top : `stats_logger.${own}`;
    out.push({
      severity: 'error',
      code: 'empty-name',
      key,
      message: `${key} is empty: the trainer stops with "${message}"; give it a value`,
    });
  }
  return out;
}

function engineRules(cfg: Record<string, any>): RuleFinding[] {
  const out: RuleFinding[] = [];
  for (const g of ENGINES) {
    const e = get(cfg, g);
    if (!e || typeof e !== 'object') continue;
    // ArchonEngineConfig.__post_init__, its own words.
    const lps = get(e, 'archon.pp_layers_per_stage');
    if (typeof lps === 'number' && lps < 1)
      out.push({
        severity: 'error',
        code: 'archon-pp',
        key: `${g}.archon.pp_layers_per_stage`,
        message:
          `pp_layers_per_stage must be >= 1, got ${lps} ` +
          `(${g}.archon.pp_layers_per_stage; null lets the schedule decide)`,
      });
    for (const f of ['pp_first_stage_less_layers', 'pp_last_stage_less_layers']) {
      const v = get(e, `archon.${f}`);
      if (typeof v === 'number' && v < 0)
        out.push({
          severity: 'error',
          code: 'archon-pp',
          key: `${g}.archon.${f}`,
          message: `${f} must be >= 0, got ${v} (${g}.archon.${f})`,
        });
    }
    // TrainEngineConfig.__post_init__.
    if (get(e, 'fsdp.memory_efficient_load') === true && get(e, 'init_from_scratch') === true)
      out.push({
        severity: 'error',
        code: 'memory-efficient-load',
        key: `${g}.fsdp.memory_efficient_load`,
        message:
          `memory_efficient_load cannot be used with init_from_scratch=True (${g}): memory_efficient_load ` +
          'loads pretrained weights on CPU, init_from_scratch loads none; set one of them to false',
      });
  }
  return out;
}

function etcdRule(cfg: Record<string, any>): RuleFinding[] {
  if (get(cfg, 'cluster.name_resolve.type') !== 'etcd3') return [];
  const addr = get(cfg, 'cluster.name_resolve.etcd3_addr');
  if (typeof addr !== 'string') return [];
  // name_resolve.make_repository: `host, port = args.etcd3_addr.split(":")`, then int(port).
  const parts = addr.split(':');
  const why =
    parts.length === 1
      ? 'has no :port'
      : parts.length > 2
        ? `has ${parts.length - 1} ':' (the trainer splits it into exactly host and port)`
        : !/^\s*[+-]?\d+(_\d+)*\s*$/.test(parts[1])
          ? `has port '${shown(parts[1])}', which is not a number`
          : null;
  if (!why) return [];
  return [
    {
      severity: 'error',
      code: 'etcd3-addr',
      key: 'cluster.name_resolve.etcd3_addr',
      message: `cluster.name_resolve.etcd3_addr '${shown(addr)}' ${why}; write host:port, e.g. etcd.internal:2379`,
    },
  ];
}

function pathNameRules(cfg: Record<string, any>): RuleFinding[] {
  const out: RuleFinding[] = [];
  let experiment: string | null = null;
  try {
    // A name the target's environment decides (`${oc.env:…}`) is not known here: not checked.
    experiment = nameDependsOnTarget(cfg) ? null : resolveExperimentName(cfg);
  } catch {
    // A name that cannot be built has its own diagnostics.
  }
  const trial =
    typeof cfg.trial_name === 'string' && cfg.trial_name !== '???' && !hasInterpolation(cfg.trial_name)
      ? cfg.trial_name
      : null;
  for (const [key, name] of [
    ['experiment_name', experiment],
    ['trial_name', trial],
  ] as const) {
    if (!name) continue;
    const why = pathNameProblem(name);
    const built =
      key === 'experiment_name' && cfg.experiment_name === 'auto'
        ? ' (built from the config: experiment_name is auto)'
        : '';
    if (why)
      out.push({
        severity: 'error',
        code: 'name-path',
        key,
        message:
          `${key} '${shown(name)}'${built} ${why}; ` +
          'the trainer makes it one directory under <fileroot>/logs/<user>/: choose a plain name',
      });
  }
  const root = get(cfg, 'cluster.fileroot');
  if (typeof root === 'string' && root.includes('\0'))
    out.push({
      severity: 'error',
      code: 'name-path',
      key: 'cluster.fileroot',
      message: `cluster.fileroot '${shown(root)}' contains a NUL character, which no path can hold; remove it`,
    });
  if (experiment && trial && !out.length) {
    const why = wandbIdNameProblem(experiment, trial);
    if (why)
      out.push({
        severity: 'error',
        code: 'name-path',
        key: 'trial_name',
        message: `${why}; shorten experiment_name or trial_name`,
      });
  }
  return out;
}

export const postInitRules: Rule = ({ cfg }) => [
  ...logPathRule(cfg),
  ...engineRules(cfg),
  ...etcdRule(cfg),
  ...pathNameRules(cfg),
];
