// Names that become one directory or file name on the target: experiment_name and trial_name
// (`<fileroot>/logs/<user>/<experiment>/<trial>/`, `<fileroot>/wandb_id/<experiment>__<trial>`).
// Pure: the config rules and the demo trainer (src/sim) use the same check.

/** Linux refuses a path component longer than this (NAME_MAX, in bytes). */
export const NAME_MAX_BYTES = 255;

/** Why `name` cannot be one path component on the target, or null when it can. */
export function pathNameProblem(name: string): string | null {
  if (name.includes('\0')) return 'contains a NUL character, which no path can hold';
  if (name.includes('/')) return "contains '/', which would make it several directories";
  if (name === '.' || name === '..')
    return `is '${name}', which names ${name === '.' ? 'the directory itself' : 'the parent directory'}`;
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > NAME_MAX_BYTES) return `is ${bytes} bytes long; a file name on Linux holds at most ${NAME_MAX_BYTES}`;
  return null;
}

/** The wandb id file `<experiment>__<trial>` is one name too: both together must fit. */
export function wandbIdNameProblem(experiment: string, trial: string): string | null {
  const bytes = new TextEncoder().encode(`${experiment}__${trial}`).length;
  return bytes > NAME_MAX_BYTES
    ? `'<experiment_name>__<trial_name>' (the wandb id file) is ${bytes} bytes long; ` +
        `a file name holds at most ${NAME_MAX_BYTES}`
    : null;
}
