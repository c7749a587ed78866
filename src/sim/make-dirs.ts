// Directory creation for paths a user gave (sim init DIR, the config's fileroot). Node 20's
// mkdirSync(p, {recursive: true}) spins forever under /proc (ENOENT from a parent it cannot create is
// retried without end), so we find the nearest existing ancestor ourselves, check it is a directory,
// and create the missing levels one at a time: any refusal surfaces as one error naming the path.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Why a directory could not be made, in one line (no stack: callers show `message` as is). */
export class MakeDirError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`cannot create directory ${path}: ${reason}`);
    this.name = 'MakeDirError';
  }
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  ENOTDIR: 'a path component is not a directory',
  ENOENT: 'the parent directory does not exist and cannot be created',
};

function isDir(p: string): boolean | null {
  try {
    return statSync(p).isDirectory();
  } catch {
    return null; // missing (or unreadable): a level to create
  }
}

/** Creates `path` and any missing parents, like `mkdir -p`; throws MakeDirError on the first refusal. */
export function makeDirs(pathArg: string, mode?: number): void {
  const path = resolve(pathArg);
  const missing: string[] = [];
  let p = path;
  for (;;) {
    const d = isDir(p);
    if (d === true) break;
    if (d === false) throw new MakeDirError(path, `${p} is not a directory`);
    const up = dirname(p);
    if (up === p) break; // the root itself missing: mkdirSync below reports it
    missing.push(p);
    p = up;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, mode === undefined ? undefined : { mode });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST' && isDir(level)) continue; // made by someone else meanwhile
      throw new MakeDirError(path, `${REASONS[code] ?? code} (at ${level})`);
    }
  }
}
