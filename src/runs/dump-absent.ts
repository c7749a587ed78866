// Why a run shows no dumped episodes, said one way for `awrl-tui episodes` and the cockpit's
// Trajectories screen: dumping off (and how to turn it on), the rollout directory not there yet (or
// wiped by webgym/train.py on a restart), the version asked for absent, or no records in it.
import type { DumpListing } from '../episodes/index.js';

export interface DumpAbsence {
  /** `rollout.dump_to_file` as the run's config resolves it (null: unknown). */
  dumpToFile: boolean | null;
  listing: Pick<DumpListing, 'logDir' | 'missing'>;
  /** The version asked for (`--version V`), if one was. */
  version?: number;
}

export function noDumpsWhy(a: DumpAbsence): string {
  const rollout = `${a.listing.logDir}/rollout`;
  if (a.dumpToFile === false)
    return (
      'dumping is off: rollout.dump_to_file is false in its config. Launch with the override ' +
      `rollout.dump_to_file=true (episodes and screenshots then go to ${rollout}/<version>/)`
    );
  if (a.listing.missing.includes('train'))
    return (
      `${rollout} does not exist: the trainer has not dumped a group yet (it dumps after a GRPO group ` +
      'finishes), or webgym/train.py removed it on a restart'
    );
  if (a.version !== undefined) return `no version directory ${a.version} with episodes under ${rollout}`;
  return `${rollout} holds no episode records`;
}
