// The fake `ray` CLI of the simulator (sim init puts it in DIR/bin/ray), pure part: argv, and the
// text `ray status` / `ray list nodes` print, in Ray 2.x's shapes (`node_<id>` lines under Active:,
// the list table, `--format json` with node_id/node_ip/is_head_node/state/node_name; `ray status -v`
// adds a `Node: IP (node_<id>)` block per live node, as Ray 2.x keys its usage by node IP). The cluster
// lives in a registry directory on the shared file system (ray-main.ts): one file per node, kept
// fresh by the node's blocking `ray start` process; a node whose file went stale (its process or its
// machine died) is DEAD, as Ray marks a node whose heartbeats stopped.

export interface RayNode {
  host: string;
  ip: string;
  /** PID of the node's `ray start` process, in that node's PID space. */
  pid: number;
  head: boolean;
  nodeId: string;
  /** `IP:PORT` of the head's GCS (the address workers join). */
  address: string;
  startedMs: number;
  gpus: number;
  cpus: number;
}

export interface RegisteredNode extends RayNode {
  /** Time of its last heartbeat (its registry file's mtime). */
  beatMs: number;
}

/** A node that has not beaten for this long is DEAD (Ray's own timeout is ~30 s). */
export const STALE_MS = 15_000;

export type RayCommand =
  | { kind: 'start-head'; port: number; ip: string | null; block: boolean; gpus: number | null }
  | { kind: 'start-worker'; address: string; ip: string | null; block: boolean; gpus: number | null }
  | { kind: 'status'; address: string | null; verbose: boolean }
  | { kind: 'list-nodes'; format: 'table' | 'json'; address: string | null }
  | { kind: 'stop' }
  | { kind: 'error'; message: string };

export function parseRayArgv(argv: readonly string[]): RayCommand {
  const opts = new Map<string, string | true>();
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-v') {
      opts.set('verbose', true);
      continue;
    }
    if (!a.startsWith('--')) {
      words.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    if (eq > 0) opts.set(a.slice(2, eq), a.slice(eq + 1));
    else if (['block', 'head', 'force', 'disable-usage-stats', 'verbose'].includes(a.slice(2)))
      opts.set(a.slice(2), true);
    else opts.set(a.slice(2), argv[++i] ?? '');
  }
  const str = (k: string): string | null => (typeof opts.get(k) === 'string' ? (opts.get(k) as string) : null);
  const gpus = str('num-gpus') !== null ? Number(str('num-gpus')) : null;
  const address = str('address');
  switch (words.join(' ')) {
    case 'start':
      if (opts.get('head'))
        return {
          kind: 'start-head',
          port: Number(str('port') ?? 6379),
          ip: str('node-ip-address'),
          block: opts.has('block'),
          gpus,
        };
      if (address) return { kind: 'start-worker', address, ip: str('node-ip-address'), block: opts.has('block'), gpus };
      return { kind: 'error', message: 'ray start: either --head or --address must be given' };
    case 'status':
      return { kind: 'status', address, verbose: opts.has('verbose') };
    case 'list nodes':
      return { kind: 'list-nodes', format: str('format') === 'json' ? 'json' : 'table', address };
    case 'stop':
      return { kind: 'stop' };
    default:
      return {
        kind: 'error',
        message: `Usage: ray [OPTIONS] COMMAND [ARGS]...\nTry 'ray --help' for help.\n\nError: No such command '${words[0] ?? ''}'.`,
      };
  }
}

export const alive = (n: RegisteredNode, nowMs: number): boolean => nowMs - n.beatMs < STALE_MS;

/** The head first, then workers in the order they joined: the simulated node index of each host. */
export function clusterOrder(nodes: readonly RegisteredNode[]): RegisteredNode[] {
  return [...nodes].sort(
    (a, b) => Number(b.head) - Number(a.head) || a.startedMs - b.startedMs || a.host.localeCompare(b.host),
  );
}

/** The live head whose GCS is at `address` (any live head when address is null). */
export function headFor(
  nodes: readonly RegisteredNode[],
  address: string | null,
  nowMs: number,
): RegisteredNode | null {
  return nodes.find((n) => n.head && alive(n, nowMs) && (address === null || n.address === address)) ?? null;
}

/** Nodes of the cluster headed by `head`: the head and the workers that joined its address. */
export function membersOf(nodes: readonly RegisteredNode[], head: RegisteredNode): RegisteredNode[] {
  return clusterOrder(
    nodes.filter((n) => n === head || (!n.head && n.address === head.address && n.startedMs >= head.startedMs)),
  );
}

const stamp = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '000');

export function statusText(members: readonly RegisteredNode[], nowMs: number, verbose = false): string {
  const up = members.filter((n) => alive(n, nowMs));
  const down = members.filter((n) => !alive(n, nowMs));
  const cpus = up.reduce((s, n) => s + n.cpus, 0);
  const gpus = up.reduce((s, n) => s + n.gpus, 0);
  return [
    `======== Autoscaler status: ${stamp(nowMs)} ========`,
    'Node status',
    '---------------------------------------------------------------',
    'Active:',
    ...up.map((n) => ` 1 node_${n.nodeId}`),
    'Pending:',
    ' (no pending nodes)',
    'Recent failures:',
    ...(down.length ? down.map((n) => ` node_${n.nodeId} (${n.ip})`) : [' (no failures)']),
    '',
    'Resources',
    '---------------------------------------------------------------',
    'Usage:',
    ` 0.0/${cpus.toFixed(1)} CPU`,
    ` 0.0/${gpus.toFixed(1)} GPU`,
    '',
    'Demands:',
    ' (no resource demands)',
    // -v: each live node's own usage, keyed by its IP with its node type (Ray 2.x's breakdown).
    ...(verbose
      ? up.flatMap((n) => [
          '',
          `Node: ${n.ip} (node_${n.nodeId})`,
          ' Usage:',
          `  0.0/${n.cpus.toFixed(1)} CPU`,
          `  0.0/${n.gpus.toFixed(1)} GPU`,
        ])
      : []),
    '',
  ].join('\n');
}

/** What `ray list nodes` says on a core-only install (no dashboard: Ray's state API is not there). */
export const NO_STATE_API =
  'ConnectionError: Failed to connect to API server. Please check the API server log for details. Make sure dependencies are installed with `pip install ray[default]`. Please also check dashboard is available, and included when starting ray cluster, i.e., `ray start --include-dashboard=True --head`.';

export function listNodesJson(members: readonly RegisteredNode[], nowMs: number): string {
  const rows = members.map((n) => ({
    node_id: n.nodeId,
    node_ip: n.ip,
    is_head_node: n.head,
    state: alive(n, nowMs) ? 'ALIVE' : 'DEAD',
    state_message: alive(n, nowMs)
      ? null
      : 'Unexpected termination: health check failed due to missing too many heartbeats',
    node_name: n.ip,
    resources_total: { CPU: n.cpus, GPU: n.gpus },
    labels: { 'ray.io/node_id': n.nodeId },
    start_time_ms: n.startedMs,
  }));
  return JSON.stringify(rows, null, 2) + '\n';
}

export function listNodesTable(members: readonly RegisteredNode[], nowMs: number): string {
  const head = ['', 'NODE_ID', 'NODE_IP', 'IS_HEAD_NODE', 'STATE', 'NODE_NAME'];
  const rows = members.map((n, i) => [
    String(i),
    n.nodeId,
    n.ip,
    n.head ? 'True' : 'False',
    alive(n, nowMs) ? 'ALIVE' : 'DEAD',
    n.ip,
  ]);
  const width = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (r: string[]): string => ` ${r.map((v, c) => v.padEnd(width[c])).join('  ')}`.trimEnd();
  return [
    `======== List: ${stamp(nowMs)} ========`,
    'Stats:',
    '------------------------------',
    `Total: ${members.length}`,
    '',
    'Table:',
    '------------------------------',
    line(head),
    ...rows.map(line),
    '',
  ].join('\n');
}

export const NO_CLUSTER =
  'ConnectionError: Could not find any running Ray instance. Please specify the one to connect to by setting `--address` flag or `RAY_ADDRESS` environment variable.';

export const joinFailure = (address: string): string =>
  `RuntimeError: Failed to connect to GCS at address ${address} within 60 seconds.`;
