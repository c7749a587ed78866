// A direct run's state is what the list script (src/runs remote-scripts.ts LIST_SCRIPT, judged by
// run-state.ts) makes of a few files of its run dir and the processes they name. The sentinel looks
// at exactly those in-process, for nothing (no process started): run.json, exit.code, the attempts'
// and Slurm's exit files, job.pid's and launch.pid's process (gone, a zombie, or which process by
// its start time). When any of them changes from one look to the next it nudges the state poll,
// which stays the one judge of the state: the look decides nothing, it only says when to ask (a
// reused pid costs one extra ask, never a false end). So the sentinel asks a direct run's state at
// once when it may have moved, and polls it only seldom besides (sentinel-run.ts). A Slurm run's
// state is squeue's: polls only.
import { readdirSync, readFileSync, statSync } from 'node:fs';

/** How often the run dir is looked at: a few stats and small reads, no process started. */
export const JOB_LOOK_MS = 500;

/** `(nudge) => stop` for RunWatchOptions.stateNudge: nudges when what the run's state is derived
 *  from changed from one look to the next. */
export function jobEndNudge(runDir: string, everyMs = JOB_LOOK_MS): (nudge: () => void) => () => void {
  return (nudge) => {
    let last = stateInputs(runDir);
    const timer = setInterval(() => {
      const now = stateInputs(runDir);
      if (now !== last) nudge();
      last = now;
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  };
}

/** The run dir's files the list script reads a run's state from, beyond run.json and the pid files. */
const EXIT_FILE = /^(?:exit\.code|attempt-exit\.\d+|slurm-exit\.\S+)$/;

/** Everything the list script reads of a direct run's state, as one comparable string: equal
 *  strings, the same state (for the same process, whatever job_alive reads of it stays). */
export function stateInputs(runDir: string): string {
  const parts = [fileKey(`${runDir}/run.json`), processKey(runDir, 'job.pid'), processKey(runDir, 'launch.pid')];
  let names: string[];
  try {
    names = readdirSync(runDir);
  } catch (e) {
    return `no run dir: ${(e as NodeJS.ErrnoException).code}`;
  }
  for (const n of names.filter((n) => EXIT_FILE.test(n)).sort()) parts.push(`${n}=${readSmall(`${runDir}/${n}`)}`);
  return parts.join(' ');
}

/** A file's identity and last change (`-`: none): run.json is replaced or rewritten, never read here. */
function fileKey(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-';
}

/** What a small file says (its first line, as the list script reads it), or `-`. */
function readSmall(path: string): string {
  try {
    return readFileSync(path, 'latin1').split('\n', 1)[0];
  } catch {
    return '-';
  }
}

/** The process a pid file names: its pid, whether it is a zombie, and its start time (another
 *  process that got the pid starts at another time); `gone` when there is none. */
function processKey(runDir: string, file: string): string {
  if (!statSync(`${runDir}/${file}`, { throwIfNoEntry: false })) return `${file}:-`;
  const pid = readSmall(`${runDir}/${file}`).trim();
  if (!/^\d+$/.test(pid) || Number(pid) <= 1) return `${file}:${pid}`;
  const stat = readSmall(`/proc/${pid}/stat`);
  if (stat === '-') return `${file}:${pid}:gone`;
  // After the command's `)`: state, then 18 fields to the start time (proc(5): fields 3 and 22).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return `${file}:${pid}:${f[0] === 'Z' ? 'zombie' : 'live'}:${f[19]}`;
}
