// webgym/train.py's wipe (TR:166-185): on every start, fresh or resumed, it deletes each version
// directory under `{fileroot}/logs/root/{exp}/{trial}/{rollout,test-rollout}` ("root" hard-coded,
// while the logs go under the trainer's own user). Pure: who is at risk and what to say.

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

/** The warning for a start of the trial, or null when nothing there would be deleted. `found`: the
 *  records counted in the directory the wipe hits. */
export function wipeWarning(
  found: { logDir: string; episodes: number; versions: number },
  wiped: string,
  pinned: number,
  pinHint: string,
): WipeWarning | null {
  if (found.logDir.replace(/\/+$/, '') !== wiped || found.episodes === 0) return null;
  const kept = pinned > 0 ? `${pinned} of them pinned here (safe); ` : '';
  return {
    episodes: found.episodes,
    versions: found.versions,
    pinned,
    text:
      `webgym/train.py deletes ${wiped}/{rollout,test-rollout} when it starts: ` +
      `${found.episodes} dumped episodes in ${found.versions} version directories will be lost (${kept}` +
      `pin one first with: ${pinHint})`,
  };
}
