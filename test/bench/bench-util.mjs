// Small helpers shared by the benchmarks that start real processes (sshd) and must clean up
// every process they started, by PID.
import { createServer } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';

/** A TCP port free on `host` right now. */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve) => {
    const s = createServer().listen(0, host, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Every descendant PID of `pid` (children first), read from /proc. */
export function descendants(pid) {
  const kids = new Map();
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const st = readFileSync(`/proc/${n}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(n)]);
    } catch {}
  }
  const out = [];
  const visit = (p) => (kids.get(p) ?? []).forEach((c) => (visit(c), out.push(c)));
  visit(pid);
  return out;
}
