// The fake Ray cluster's registry (I/O): one JSON file per node under DIR/state/ray/nodes/ on the
// shared file system, its mtime the node's heartbeat. Read by the fake `ray` and by the fake
// nvidia-smi (a node's GPU holder is its Ray process, a real process of that node).
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { RayNode, RegisteredNode } from './ray.js';

const safeHost = (host: string): string => host.replace(/[^A-Za-z0-9_.-]/g, '_');
export const nodeFile = (dir: string, host: string): string => join(dir, 'nodes', `${safeHost(host)}.json`);

export function registerNode(dir: string, node: RayNode): void {
  mkdirSync(join(dir, 'nodes'), { recursive: true });
  const file = nodeFile(dir, node.host);
  writeFileSync(`${file}.${process.pid}.tmp`, JSON.stringify(node) + '\n');
  renameSync(`${file}.${process.pid}.tmp`, file);
}

export function beat(dir: string, host: string): void {
  const now = new Date();
  try {
    utimesSync(nodeFile(dir, host), now, now);
  } catch {
    /* removed by `ray stop`: the loop ends on its own signal */
  }
}

export function unregister(dir: string, host: string, pid: number): void {
  try {
    const n = JSON.parse(readFileSync(nodeFile(dir, host), 'utf8')) as RayNode;
    if (n.pid === pid) unlinkSync(nodeFile(dir, host));
  } catch {
    /* gone already */
  }
}

export function readNodes(dir: string): RegisteredNode[] {
  let names: string[] = [];
  try {
    names = readdirSync(join(dir, 'nodes')).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: RegisteredNode[] = [];
  for (const name of names) {
    try {
      const file = join(dir, 'nodes', name);
      const n = JSON.parse(readFileSync(file, 'utf8')) as RayNode;
      out.push({ ...n, beatMs: statSync(file).mtimeMs });
    } catch {
      /* half-written or removed while listing */
    }
  }
  return out;
}

/** True while `pid` is a live process in THIS node's PID space. */
export function pidAliveHere(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
