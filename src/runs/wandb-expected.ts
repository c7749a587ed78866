// The wandb run a config makes, known before wandb prints its banner, as AReaL's StatsLogger.init
// (areal/utils/stats_logger.py, webgym async 01e3daef) makes it:
//   id      `{stats_logger.experiment_name}_{trial_name}_{suffix}`; suffix = wandb.id_suffix (default
//           `train`), or with id_suffix `timestamp` the text of `{fileroot}/wandb_id/{exp}__{trial}`
//           (stripped), which the first start writes and every restart reads (so a resume attaches)
//   project wandb.project, else the experiment name
//   entity  wandb.entity; unset: the logged-in user's default entity, which only wandb's banner tells
//   host    wandb.wandb_base_url (exported as WANDB_BASE_URL), else WANDB_BASE_URL in the trainer's
//           environment, else https://api.wandb.ai; the app's pages are on the host without `api.`
// The run page is `{app}/{entity}/{project}/runs/{id}`. Pure: the resolved config and the id file's
// text are passed in.

export interface WandbConfigFacts {
  mode: string;
  entity: string | null;
  project: string;
  /** wandb.wandb_base_url, '' when unset. */
  baseUrl: string;
  idSuffix: string;
  experiment: string;
  trial: string;
  fileroot: string;
}

export interface ExpectedWandb {
  mode: 'online' | 'offline';
  /** The run id, null while the suffix is not known (id_suffix `timestamp` before the trainer wrote it). */
  id: string | null;
  project: string;
  entity: string | null;
  /** The run page; null when a part of it is not known (`unknown` says which). */
  url: string | null;
  /** What is not known before the banner, and why (empty: nothing). */
  unknown: string[];
  /** Where StatsLogger keeps the id suffix (id_suffix `timestamp`), else null. */
  idFile: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The run's names as the config engine resolves them (`experiment_name: auto` becomes the name
 *  the trainer derives: ConfigEvaluation.experimentName). */
export interface RunNames {
  experiment: string | null;
  trial: string | null;
}

/** The wandb settings of a resolved config (null: no stats_logger section, or names missing).
 *  stats_logger's names follow the top-level ones (`${experiment_name}`): those are `names`. */
export function wandbConfigFacts(resolved: unknown, names?: RunNames): WandbConfigFacts | null {
  const root = resolved as { stats_logger?: Record<string, unknown>; experiment_name?: unknown } | null;
  const sl = root?.stats_logger;
  const w = sl?.wandb as Record<string, unknown> | undefined;
  const follows = (key: 'experiment_name' | 'trial_name') => sl?.[key] === (root as Record<string, unknown>)[key];
  const experiment = (follows('experiment_name') ? names?.experiment : null) ?? str(sl?.experiment_name);
  const trial = (follows('trial_name') ? names?.trial : null) ?? str(sl?.trial_name);
  const fileroot = str(sl?.fileroot);
  if (!w || experiment === null || trial === null || fileroot === null) return null;
  return {
    mode: str(w.mode) ?? 'disabled',
    entity: str(w.entity),
    project: str(w.project) ?? experiment,
    baseUrl: str(w.wandb_base_url) ?? '',
    idSuffix: str(w.id_suffix) ?? 'train',
    experiment,
    trial,
    fileroot,
  };
}

/** `{fileroot}/wandb_id/{exp}__{trial}`: where a `timestamp` suffix is kept. */
export function wandbIdFile(f: WandbConfigFacts): string {
  return `${f.fileroot.replace(/\/+$/, '')}/wandb_id/${f.experiment}__${f.trial}`;
}

/** wandb's app host for an API base URL: https://api.wandb.ai → https://wandb.ai. */
export function wandbAppUrl(baseUrl: string): string {
  return (baseUrl || 'https://api.wandb.ai').replace(/\/+$/, '').replace('//api.', '//');
}

/**
 * The run a config makes (null: wandb disabled). `idFileText`: the id file's content when
 * id_suffix is `timestamp` (null: not written yet, or not readable).
 */
export function expectedWandb(f: WandbConfigFacts, idFileText: string | null): ExpectedWandb | null {
  if (f.mode === 'disabled') return null;
  const timestamp = f.idSuffix === 'timestamp';
  const suffix = timestamp ? (idFileText?.trim() ?? null) : f.idSuffix;
  const id = suffix ? `${f.experiment}_${f.trial}_${suffix}` : null;
  const unknown: string[] = [];
  if (id === null) unknown.push(`the run id: its suffix is written to ${wandbIdFile(f)} when the trainer starts`);
  if (f.mode === 'offline')
    unknown.push('the local run dir (and so its `wandb sync` command): wandb names it by its start time and prints it');
  if (f.mode !== 'offline' && f.entity === null)
    unknown.push("the entity: wandb.entity is unset, so it is the logged-in user's default (wandb's banner names it)");
  if (f.mode !== 'offline' && f.baseUrl === '')
    unknown.push("the host, if the trainer's environment sets WANDB_BASE_URL (otherwise wandb.ai)");
  const url =
    f.mode === 'offline' || id === null || f.entity === null
      ? null
      : `${wandbAppUrl(f.baseUrl)}/${f.entity}/${f.project}/runs/${id}`;
  return {
    mode: f.mode === 'offline' ? 'offline' : 'online',
    id,
    project: f.project,
    entity: f.entity,
    url,
    unknown,
    idFile: timestamp ? wandbIdFile(f) : null,
  };
}
