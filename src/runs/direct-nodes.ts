// The nodes of a direct multi-node run (a Ray cluster the trainer joins on the head): given once at
// launch (`--node`), or discovered from the cluster after the target's setup line (`ray list nodes
// --format json`: each node's IP, then its hostname from the head's resolver; without the dashboard,
// as a core-only Ray is installed, `ray status -v`: its `Node: IP (node_<id>)` blocks). Recorded per attempt
// in run.json like Slurm's, head first and named by its hostname (not the ssh alias), so pre-flight,
// the GPU panel and the leftover check use them without repeating them. When they cannot be known,
// the attempt says why (`nodesUnknown`), and readers say "nodes unknown" instead of "all clear".
import type { Transport } from '../remote/transport.js';
import { NODE_NAME } from '../remote/node-fan-out.js';
import { setupInWorkdir, type Target } from './targets.js';
import type { RunRecord } from './run-record.js';
import { gpuPollScope, type GpuPollScope } from '../gpu/scope.js';

// $1 setup line, then the nodes given at launch (none: discover). Prints `@@head NAME`, then
// `@@node NAME IP STATE ROLE` per node (given: `- given`), or `@@unknown WHY`.
// `ray list nodes` needs Ray's state API (the dashboard); a core-only Ray has `ray status` only,
// whose `-v` names each live node by IP (Ray 2.x: `Node: 10.0.0.5 (node_<id>)`); one that names
// them by id only leaves them unknown, said so.
const DISCOVER_SCRIPT = String.raw`
s=$1; shift
[ -n "$s" ] && { eval "$s"; } >/dev/null 2>&1 </dev/null
printf '@@head\t%s\n' "$(hostname -s 2>/dev/null || hostname)"
if [ $# -gt 0 ]; then for n in "$@"; do printf '@@node\t%s\t-\tgiven\n' "$n"; done; exit 0; fi
command -v ray >/dev/null 2>&1 || { printf '@@unknown\tray is not on PATH on the head (after the setup line): name the nodes with --node\n'; exit 0; }
last() { printf '%s' "$1" | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c1-200; }
if ! j=$(timeout 60 ray list nodes --format json 2>&1); then
  why="ray list nodes failed: $(last "$j")"
  if ! st=$(timeout 60 ray status -v 2>&1); then printf '@@unknown\t%s; ray status failed too: %s\n' "$why" "$(last "$st")"; exit 0; fi
  ips=$(printf '%s\n' "$st" | sed -n 's/^Node: \([0-9][0-9.]*[0-9]\)\( (node_[0-9a-f]*)\)\{0,1\}[[:space:]]*$/\1/p')
  [ -n "$ips" ] || { printf '@@unknown\t%s; ray status -v names no node by IP\n' "$why"; exit 0; }
  mine=" $(hostname -I 2>/dev/null) $(hostname -i 2>/dev/null) "
  for ip in $ips; do
    case "$mine" in *" $ip "*) role=head ;; *) role=worker ;; esac
    name=$(getent hosts "$ip" 2>/dev/null | awk '{print $2; exit}')
    printf '@@node\t%s\t%s\tALIVE\t%s\n' "$\{name:-$ip}" "$ip" "$role"
  done
  exit 0
fi
printf '%s' "$j" | python3 -c '
import json, sys
try:
    rows = json.load(sys.stdin)
except Exception as e:
    print("@@unknown\tray list nodes printed no JSON (%s)" % e); sys.exit(0)
for r in sorted(rows, key=lambda r: not r.get("is_head_node")):
    print("@@ip\t%s\t%s\t%s" % (r.get("node_ip", ""), "head" if r.get("is_head_node") else "worker", r.get("state", "")))
' | while IFS=$'\t' read -r mark ip role state; do
  [ "$mark" = '@@ip' ] || { printf '%s\t%s\n' "$mark" "$ip"; continue; }
  name=$(getent hosts "$ip" 2>/dev/null | awk '{print $2; exit}')
  printf '@@node\t%s\t%s\t%s\t%s\n' "$\{name:-$ip}" "$ip" "$state" "$role"
done
`.replaceAll('$\\{', '${');

export interface DiscoveredNode {
  name: string;
  ip: string | null;
  /** Ray's state (ALIVE, DEAD) or `given`. */
  state: string;
  head: boolean;
}

export interface DirectNodes {
  /** Head first, by hostname; [] when unknown. */
  nodes: string[];
  /** Why they are unknown (null: known). */
  unknown: string | null;
  found: DiscoveredNode[];
}

/** The discovery script's lines -> nodes (pure). The head goes first under its own hostname. */
export function parseDirectNodes(stdout: string): DirectNodes {
  let head: string | null = null;
  const found: DiscoveredNode[] = [];
  let unknown: string | null = null;
  for (const line of stdout.split('\n')) {
    const f = line.split('\t');
    if (f[0] === '@@head' && f[1]) head = f[1].trim();
    else if (f[0] === '@@unknown') unknown = f.slice(1).join(' ').trim() || 'unknown';
    else if (f[0] === '@@node' && f[1] && NODE_NAME.test(f[1])) {
      found.push({ name: f[1], ip: f[2] && f[2] !== '-' ? f[2] : null, state: f[3] ?? '', head: f[4] === 'head' });
    }
  }
  if (unknown !== null || found.length === 0)
    return { nodes: [], unknown: unknown ?? 'the Ray cluster lists no node', found };
  // Ray's head is the machine the trainer runs on: it is named by its hostname, whatever its IP resolves to.
  const names = found.map((n) => (n.head && head ? head : n.name));
  const ordered = head ? [head, ...names.filter((n) => n !== head)] : names;
  return { nodes: [...new Set(ordered)], unknown: null, found };
}

/** Asks the head (one exec): the given nodes with the head's hostname first, or the Ray cluster's. */
export async function directRunNodes(
  transport: Transport,
  target: Target,
  given: readonly string[] = [],
): Promise<DirectNodes> {
  const bad = given.find((n) => !NODE_NAME.test(n));
  if (bad !== undefined) return { nodes: [], unknown: `'${bad}' is not a node name`, found: [] };
  try {
    const r = await transport.exec(['bash', '-c', DISCOVER_SCRIPT, 'awrl-nodes', setupInWorkdir(target), ...given]);
    return parseDirectNodes(r.stdout.toString('utf8'));
  } catch (e) {
    return { nodes: [], unknown: `could not ask ${target.name}: ${(e as Error).message}`, found: [] };
  }
}

/** The latest attempt's recorded nodes (head first), or why they are unknown (null: one-node run). */
export function directAttemptNodes(
  r: Pick<RunRecord, 'attempts' | 'nodes' | 'backend'>,
): { nodes: string[]; unknown: string | null } | null {
  if (r.backend !== 'direct') return null;
  const last = r.attempts.at(-1);
  if (last?.nodes?.length) return { nodes: last.nodes, unknown: null };
  if (r.nodes <= 1) return null;
  return { nodes: [], unknown: last?.nodesUnknown ?? `run.json records no node of this ${r.nodes}-node run` };
}

/** The GPU panel's scope for a direct run (pure): the head by its hostname plus the recorded nodes,
 *  and, for a multi-node run whose nodes are unknown, the head only with a note saying so. */
export function directGpuScope(r: RunRecord, extraNodes: readonly string[]): GpuPollScope | null {
  const known = directAttemptNodes(r);
  if (!known) return null;
  if (known.unknown !== null) {
    return {
      ...gpuPollScope('direct', [], extraNodes),
      includeHead: true,
      note: `nodes unknown (${known.unknown}): only the head${extraNodes.length ? ' and --check-nodes hosts' : ''} polled`,
    };
  }
  const [head, ...others] = known.nodes;
  return {
    nodes: [...new Set([...others, ...extraNodes])].filter((n) => n !== head),
    includeHead: true,
    headName: head,
  };
}
