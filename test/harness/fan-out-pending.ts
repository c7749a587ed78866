// The node fan-out leaves a hung node's question running in the background (src/remote/node-fan-out.ts)
// and remembers it in `$TMPDIR/awrl-fanout-UID/ARGV0.CKSUM.NODE` as `PID START`. Tests give the fan-out
// their own TMPDIR and end those questions here, by PID, only while the PID is still a fan-out's
// (a stale file's PID may belong to someone else by now).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { killTree } from './sshd.js';
import { pidAlive } from './wait.js';

/** PID of the question pending for `node` (argv0 as given to nodeFanOutArgv), or null. */
export function pendingQuestion(tmp: string, argv0: string, node: string): number | null {
  // File name: ARGV0.CKSUM-OF-SSH-CONFIG.NODE
  const suffix = `.${node.replace(/[^A-Za-z0-9_.:@-]/g, '_')}`;
  for (const d of existsSync(tmp) ? readdirSync(tmp).filter((n) => n.startsWith('awrl-fanout-')) : []) {
    for (const f of readdirSync(join(tmp, d))) {
      if (!f.startsWith(`${argv0}.`) || !f.endsWith(suffix) || !/^\d+$/.test(f.slice(argv0.length + 1, -suffix.length)))
        continue;
      const pid = Number(readFileSync(join(tmp, d, f), 'utf8').split(' ')[0]);
      if (pid > 0 && isFanOut(pid)) return pid;
    }
  }
  return null;
}

/** Ends every question still pending under `tmp`. */
export async function endPendingQuestions(tmp: string): Promise<void> {
  for (const d of existsSync(tmp) ? readdirSync(tmp).filter((n) => n.startsWith('awrl-fanout-')) : []) {
    for (const f of readdirSync(join(tmp, d))) {
      const pid = Number(readFileSync(join(tmp, d, f), 'utf8').split(' ')[0]);
      if (pid > 0 && isFanOut(pid)) await killTree(pid);
    }
  }
}

function isFanOut(pid: number): boolean {
  try {
    return pidAlive(pid) && readFileSync(`/proc/${pid}/cmdline`).includes(Buffer.from('awrl-fanout-'));
  } catch {
    return false;
  }
}
