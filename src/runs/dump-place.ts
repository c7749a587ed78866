// Where a run's dumps are and whether it dumps at all, from the config it was launched with (the
// config engine, loaded only by the commands that read dumps).
import { evaluateConfig } from '../config/index.js';
import type { Transport } from '../remote/transport.js';
import type { RunRecord } from './run-record.js';
import { launchedConfigOf } from './run-facts.js';
import type { DumpPlace } from './dump-list.js';

export interface DumpSettings {
  place: DumpPlace | null;
  /** `rollout.dump_to_file` as the run's config resolves it (null: unknown). */
  dumpToFile: boolean | null;
  /** Why the place is not known. */
  why?: string;
}

export async function readDumpSettings(t: Transport, record: RunRecord): Promise<DumpSettings> {
  const launched = launchedConfigOf(record);
  if (!launched) return { place: null, dumpToFile: null, why: 'the run record names no --config' };
  let text: string;
  try {
    text = (await t.readFile(launched.configPath)).toString('utf8');
  } catch (e) {
    return { place: null, dumpToFile: null, why: `cannot read ${launched.configPath}: ${(e as Error).message}` };
  }
  const envNames = Object.keys(process.env).filter((k) => process.env[k]);
  const ev = evaluateConfig({ fileName: launched.configPath, text, overrides: launched.overrides, envNames });
  const resolved = ev.resolved as Record<string, any> | undefined;
  const fileroot = resolved?.cluster?.fileroot;
  const dump = resolved?.rollout?.dump_to_file;
  const dumpToFile = typeof dump === 'boolean' ? dump : null;
  if (typeof fileroot !== 'string' || fileroot === '')
    return { place: null, dumpToFile, why: `cluster.fileroot does not resolve in ${launched.configPath}` };
  return { place: { fileroot, experiment: record.experiment, trial: record.trial }, dumpToFile };
}
