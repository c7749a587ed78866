// Where `compare`'s A and B come from: `RUN` (on --target), `TARGET:RUN` (a targets.yaml profile,
// an ssh alias or user@host[:port], with the command line's other target flags), or a local log
// file (a path with a `/`, or a file that exists here). Each side's run record, state, config as
// launched and history, read through the same paths as `runs`, `follow` and attaching.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Transport } from '../remote/transport.js';
import type { Target, TargetFlags } from '../runs/targets.js';
import { readRecord } from '../runs/launch.js';
import { listRuns, runsRoot } from '../runs/list.js';
import { isValidRunId, runLogPath } from '../runs/run-record.js';
import { launchedConfigOf } from '../runs/run-facts.js';
import { evaluateConfig } from '../config/index.js';
import { readRunHistory, type HistoryRead } from '../session/run-history.js';
import type { RunStepsOptions } from '../metrics/run-steps.js';
import { connectOrExit } from './connect-target.js';
import { CliError, EXIT } from './errors.js';
import { cliTarget } from './run-errors.js';
import { noRunError } from './no-run.js';

export type SideSpec = { kind: 'run'; target: string | null; runId: string } | { kind: 'file'; path: string };

/** One word of the command line as a side. */
export function parseSide(word: string): SideSpec {
  if (word.includes('/') || (existsSync(word) && statSync(word).isFile())) return { kind: 'file', path: resolve(word) };
  // user@host:port:RUN: the run id is after the last colon (a run id has none).
  const at = word.lastIndexOf(':');
  const runId = at >= 0 ? word.slice(at + 1) : word;
  const target = at >= 0 ? word.slice(0, at) : null;
  if (!isValidRunId(runId) || target === '')
    throw new CliError(`'${word}' is neither a run id (RUN or TARGET:RUN) nor a log file here`, EXIT.usage, {
      hint: 'list the runs with: awrl-tui runs --target T',
      hintInLine: true,
    });
  return { kind: 'run', target, runId };
}

export interface Side {
  /** How the side is named in the output (`TARGET:RUN`, or the file's path). */
  label: string;
  runId: string | null;
  target: string | null;
  logPath: string;
  /** The run's state as `runs` tells it ('file' for a local log file). */
  state: string;
  history: HistoryRead;
  /** The config as the trainer resolved it (null: unknown, `configUnknown` says why). */
  config: Record<string, any> | null;
  configUnknown?: string;
  consumerBatchSize?: number;
}

/** Opens each target once (A and B on the same target share a connection). */
export class Connections {
  private readonly open = new Map<string, Promise<Transport>>();
  constructor(private readonly acceptNewHostKey: boolean) {}

  get(target: Target): Promise<Transport> {
    let t = this.open.get(target.name);
    if (!t) this.open.set(target.name, (t = connectOrExit(target, { acceptNewHostKey: this.acceptNewHostKey })));
    return t;
  }

  async close(): Promise<void> {
    for (const t of this.open.values()) await (await t.catch(() => null))?.close().catch(() => undefined);
  }
}

export async function readSide(
  spec: SideSpec,
  flags: TargetFlags,
  conns: Connections,
  keys: RunStepsOptions,
): Promise<Side> {
  if (spec.kind === 'file') {
    if (!existsSync(spec.path))
      throw new CliError(`cannot read ${spec.path}: no such file`, EXIT.usage, { code: 'file-unreadable' });
    const local: Target = { ...cliTarget({ target: 'local', workdir: '/' }), name: 'local' };
    const history = await readRunHistory(await conns.get(local), spec.path, keys);
    return {
      label: spec.path,
      runId: null,
      target: null,
      logPath: spec.path,
      state: 'file',
      history,
      config: null,
      configUnknown: 'a log file alone: the run record that names its config is not known',
    };
  }
  const name = spec.target ?? flags.target;
  if (!name)
    throw new CliError(
      `which target is run ${spec.runId} on? Give --target T, or write TARGET:${spec.runId}`,
      EXIT.usage,
    );
  const target = cliTarget({ ...flags, target: name });
  const transport = await conns.get(target);
  const record = await readRecord(transport, `${runsRoot(target)}/${spec.runId}`).catch(() => null);
  if (!record) throw await noRunError(transport, target, spec.runId, `awrl-tui runs --target ${target.name}`);
  const logPath = runLogPath(record);
  const [listed, history, config] = await Promise.all([
    listRuns(transport, target, { only: spec.runId, tailBytes: 0 }).catch(() => []),
    readRunHistory(transport, logPath, keys),
    launchedConfig(transport, record),
  ]);
  return {
    label: `${target.name}:${spec.runId}`,
    runId: spec.runId,
    target: target.name,
    logPath,
    state: listed[0]?.state ?? 'unknown',
    history,
    ...config,
  };
}

/** The run's config as the trainer resolved it: its uploaded file and recorded overrides through
 *  the config engine (the names of the variables set here, as `follow` reads a run's facts). */
async function launchedConfig(
  transport: Transport,
  record: Parameters<typeof launchedConfigOf>[0],
): Promise<Pick<Side, 'config' | 'configUnknown' | 'consumerBatchSize'>> {
  const launched = launchedConfigOf(record);
  if (!launched) return { config: null, configUnknown: 'its record names no config' };
  let text: string;
  try {
    text = (await transport.readFile(launched.configPath)).toString('utf8');
  } catch (e) {
    return { config: null, configUnknown: `its config ${launched.configPath} cannot be read: ${(e as Error).message}` };
  }
  const envNames = Object.keys(process.env).filter((k) => process.env[k]);
  const ev = evaluateConfig({ fileName: launched.configPath, text, overrides: launched.overrides, envNames });
  if (!ev.resolved) return { config: null, configUnknown: `its config ${launched.configPath} does not resolve` };
  const batch = ev.resolved.rollout?.consumer_batch_size;
  return {
    config: ev.resolved,
    ...(typeof batch === 'number' && Number.isFinite(batch) ? { consumerBatchSize: batch } : {}),
  };
}
