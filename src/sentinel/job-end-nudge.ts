// The sentinel asks its run's state only every 10 s (each look is a list script: its largest cost),
// so without this the run's end would reach the phone up to 10 s (50 s on a quiet log) late. A
// direct run's end is seen in-process for nothing: its job process (job.pid) gone, or its exit code
// written. Either change nudges the state poll, which stays the one judge of the state (a reused pid
// costs one extra look, never a false end). A Slurm run's job is not a process here: polls only.
import { existsSync, readFileSync } from 'node:fs';

/** How often the job is looked at: two syscalls and a small read, no process started. */
export const JOB_LOOK_MS = 500;

/** `(nudge) => stop` for RunWatchOptions.stateNudge: nudges when the job's liveness or its exit
 *  code's presence changes from one look to the next. */
export function jobEndNudge(runDir: string, everyMs = JOB_LOOK_MS): (nudge: () => void) => () => void {
  return (nudge) => {
    let last = look(runDir);
    const timer = setInterval(() => {
      const now = look(runDir);
      if (now !== last) nudge();
      last = now;
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  };
}

/** What the run dir says of the job now, as one comparable word. */
function look(runDir: string): string {
  const ended = existsSync(`${runDir}/exit.code`) ? 'exit' : '';
  return `${alive(readPid(runDir)) ? 'alive' : 'gone'}${ended}`;
}

function readPid(runDir: string): number | null {
  try {
    const n = Number(readFileSync(`${runDir}/job.pid`, 'utf8').trim());
    return Number.isInteger(n) && n > 1 ? n : null;
  } catch {
    return null;
  }
}

function alive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process: alive
  }
}
