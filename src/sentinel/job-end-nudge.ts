// A direct run's state is what the list script (src/runs remote-scripts.ts LIST_SCRIPT, judged by
// run-state.ts) makes of a few files of its run dir and the processes they name. The sentinel looks
// at exactly those in-process, for nothing (no process started): run.json, exit.code, job.pid's and
// launch.pid's process (gone, a zombie, or which process by its start time). When any of them
// changes from one look to the next it nudges the state poll, which stays the one judge of the
// state: the look decides nothing, it only says when to ask (a reused pid costs one extra ask,
// never a false end). So the sentinel asks a direct run's state at once when it may have moved, and
// polls it only seldom besides (sentinel-run.ts). A Slurm run's state is squeue's: polls only.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';

/** How often the run dir is looked at: four stats and a read of /proc (~30 µs), no process started. */
export const JOB_LOOK_MS = 500;

/** `(nudge) => stop` for RunWatchOptions.stateNudge: nudges when what the run's state is derived
 *  from changed from one look to the next. */
export function jobEndNudge(runDir: string, everyMs = JOB_LOOK_MS): (nudge: () => void) => () => void {
  return (nudge) => {
    const pids: PidCache = new Map();
    let last = stateInputs(runDir, pids);
    const timer = setInterval(() => {
      const now = stateInputs(runDir, pids);
      if (now !== last) nudge();
      last = now;
    }, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  };
}

/** Everything the list script reads of a direct run's state (run-state.ts's deriveRunState: run.json,
 *  the job's and the launcher's liveness, exit.code; the attempts' own exit files are the chain's,
 *  not the state's), as one comparable string: equal strings, the same state (for the same
 *  process, whatever job_alive reads of it stays). A few stats and one small read of /proc. */
export function stateInputs(runDir: string, pids: PidCache = new Map()): string {
  const job = processKey(runDir, 'job.pid', pids);
  const launch = processKey(runDir, 'launch.pid', pids);
  return `${fileKey(`${runDir}/run.json`)} ${job} ${launch} ${fileKey(`${runDir}/exit.code`)}`;
}

/** A pid file's pid by the file's own key: read again only when the file changed. */
export type PidCache = Map<string, { key: string; pid: string }>;

/** A file's identity and last change (`-`: none). */
function fileKey(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '-';
}

const statBuf = Buffer.alloc(1024);

/** The process a pid file names: its pid, whether it is a zombie, and its start time (another
 *  process that got the pid starts at another time); `gone` when there is none. */
function processKey(runDir: string, file: string, pids: PidCache): string {
  const path = `${runDir}/${file}`;
  const key = fileKey(path);
  if (key === '-') return `${file}:-`;
  let known = pids.get(file);
  if (known?.key !== key) {
    known = { key, pid: readFirstLine(path).trim() };
    pids.set(file, known);
  }
  const pid = known.pid;
  if (!/^\d+$/.test(pid) || Number(pid) <= 1) return `${file}:${key}:${pid}`;
  let stat: string;
  try {
    const fd = openSync(`/proc/${pid}/stat`, 'r');
    try {
      stat = statBuf.toString('latin1', 0, readSync(fd, statBuf, 0, statBuf.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return `${file}:${pid}:gone`;
  }
  // After the command's `)`: state, then 18 fields to the start time (proc(5): fields 3 and 22).
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 20);
  return `${file}:${pid}:${f[0] === 'Z' ? 'zombie' : 'live'}:${f[19]}`;
}

/** A small file's first line, as the list script reads it (`-`: unreadable). */
function readFirstLine(path: string): string {
  try {
    return readFileSync(path, 'latin1').split('\n', 1)[0];
  } catch {
    return '-';
  }
}
