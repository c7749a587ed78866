// webgym/train.py's wipe (TR:166-185): on every start, fresh or resumed, it deletes each version
// directory under `{fileroot}/logs/root/{exp}/{trial}/{rollout,test-rollout}` ("root" hard-coded,
// while the logs go under the trainer's own user). Pure: who is at risk and what to say.
import type { DumpListing } from './listing.js';

/** The log directory the wipe hits. */
export function wipedLogDir(fileroot: string, experiment: string, trial: string): string {
  return `${fileroot.replace(/\/+$/, '')}/logs/root/${experiment}/${trial}`;
}

export interface WipeWarning {
  episodes: number;
  versions: number;
  pinned: number;
  text: string;
}

/** The warning for a start of the trial, or null when nothing listed there would be deleted. */
export function wipeWarning(l: DumpListing, wiped: string, pinned: number, pinHint: string): WipeWarning | null {
  if (l.logDir.replace(/\/+$/, '') !== wiped || l.episodes.length === 0) return null;
  const versions = new Set(l.episodes.map((e) => `${e.kind}:${e.version}`)).size;
  const kept = pinned > 0 ? `${pinned} of them pinned here (safe); ` : '';
  return {
    episodes: l.episodes.length,
    versions,
    pinned,
    text:
      `webgym/train.py deletes ${wiped}/{rollout,test-rollout} when it starts: ` +
      `${l.episodes.length} dumped episodes in ${versions} version directories will be lost (${kept}` +
      `pin one first with: ${pinHint})`,
  };
}
