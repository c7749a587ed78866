// How long the target's setup line may take wherever a remote script applies it (`conda activate`
// on a stuck NFS mount, a `module load` that waits for a license server would otherwise hold the
// script, and the command waiting on it, forever with no word).

/** The default limit of the setup line (and of each pre-flight step), in seconds. */
export const DEFAULT_SETUP_LIMIT_S = 60;

/** The words a user reads when the limit is reached (stderr of the script; pre-flight's check). */
export function setupLateWords(limitS: number | string): string {
  return `the setup line did not finish in ${limitS} s (stopped)`;
}

/**
 * `shell` (text run in the script's own shell: its exports must stay) with a watchdog: after
 * `limit` seconds (a number, or a shell word such as `"$limit"`) it says so on stderr and ends the
 * script's process group (the script is its group's leader under sshd: the hanging command goes
 * too), else the script alone. The watchdog runs in its own process group (`set -m`) so that it,
 * and its `sleep`, end as soon as `shell` returns: nothing keeps the channel's stderr open and
 * nothing is left on the target; a `wait` later in the script does not wait for it. The status of
 * `shell` is kept.
 */
export function withSetupLimit(shell: string, limit: number | string): string {
  const words = setupLateWords(typeof limit === 'number' ? String(limit) : limit);
  return [
    // A sleep that fails (none on PATH) or is ended never fires it.
    `set -m; ( sleep ${limit} </dev/null >/dev/null 2>&1 || exit 0; echo "${words} on $(hostname 2>/dev/null || uname -n)" >&2; ` +
      `kill -TERM -- -$$ 2>/dev/null || kill -TERM $$ ) >/dev/null & awrl_wd=$!; set +m`,
    shell,
    'awrl_rc=$?; kill -TERM -- -$awrl_wd 2>/dev/null || true; (exit $awrl_rc)',
  ].join('\n');
}
