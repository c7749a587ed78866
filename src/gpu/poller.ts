// Polls GPU state through a Transport at a fixed cadence with ONE exec per round: on one node
// `nvidia-smi` itself; on several, one bash script on the head that asks each node over ssh in
// parallel and prints a marker line per node (never one SSH channel per node: OpenSSH allows
// 10 sessions per connection and each exec pays the login shell's start-up).
import type { Transport } from '../remote/transport.js';
import { parseSmiCsv, smiFieldError } from './nvidia-smi.js';

export const GPU_QUERY_FIELDS = ['index', 'name', 'memory.used', 'memory.total', 'utilization.gpu'] as const;
const SMI = ['nvidia-smi', `--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];
const NODE_MARK = '@@awrl-node ';
const RC_MARK = '@@awrl-rc ';

export interface GpuSample {
  index: number | null;
  name: string | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  utilizationPct: number | null;
}

export interface GpuSnapshot {
  node: string;
  /** ms (Date.now() of the poller) when the answer arrived. */
  at: number;
  gpus: GpuSample[];
  error?: string;
}

// Positional args: the node names ("$@"); output per node is collected in a temp dir so that
// slow nodes do not interleave, then printed between markers in the order given.
const FAN_OUT = [
  'd=$(mktemp -d) || exit 1',
  'i=0',
  'for h in "$@"; do i=$((i+1)); (ssh -n -o BatchMode=yes -o ConnectTimeout=5 "$h" ' + SMI.join(' ') + ' >"$d/$i" 2>&1; echo $? >"$d/$i.rc") & done',
  'wait',
  'i=0',
  `for h in "$@"; do i=$((i+1)); echo "${NODE_MARK}$h"; cat "$d/$i"; echo "${RC_MARK}$(cat "$d/$i.rc" 2>/dev/null || echo 255)"; done`,
  'rm -rf "$d"',
].join('\n');

/** The argv of one polling round. `nodes` empty or absent: the transport's own host. */
export function gpuCommand(nodes?: readonly string[]): string[] {
  if (!nodes || nodes.length === 0) return [...SMI];
  return ['bash', '-c', FAN_OUT, 'awrl-gpu', ...nodes];
}

/** The GPU rows of one node's answer, or an error that says what to do. */
export function parseGpuAnswer(node: string, text: string, code: number | null, at: number): GpuSnapshot {
  const fieldErr = smiFieldError(text);
  if (fieldErr) return { node, at, gpus: [], error: fieldErr.message };
  if (code !== 0) {
    const first = text.trim().split('\n')[0] ?? '';
    const hint = code === 127 || /not found/.test(first) ? 'nvidia-smi is not installed or not on PATH there' : code === 255 ? 'ssh to the node failed (check that the head can ssh to it without a password)' : `nvidia-smi exited with ${code}`;
    return { node, at, gpus: [], error: `${node}: ${hint}${first ? `: ${first}` : ''}` };
  }
  try {
    const t = parseSmiCsv(text, { fields: [...GPU_QUERY_FIELDS], header: false });
    const gpus = t.rows.map((r) => ({
      index: typeof r['index'] === 'number' ? r['index'] : null,
      name: r['name'] === null ? null : String(r['name']),
      memoryUsedMiB: typeof r['memory.used'] === 'number' ? r['memory.used'] : null,
      memoryTotalMiB: typeof r['memory.total'] === 'number' ? r['memory.total'] : null,
      utilizationPct: typeof r['utilization.gpu'] === 'number' ? r['utilization.gpu'] : null,
    }));
    return { node, at, gpus };
  } catch (e) {
    return { node, at, gpus: [], error: `${node}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Splits the fan-out script's output into one snapshot per node (nodes missing from it: error). */
export function parseFanOut(nodes: readonly string[], stdout: string, at: number): GpuSnapshot[] {
  const byNode = new Map<string, { text: string[]; rc: number | null }>();
  let cur: { text: string[]; rc: number | null } | null = null;
  for (const line of stdout.split('\n')) {
    if (line.startsWith(NODE_MARK)) {
      cur = { text: [], rc: null };
      byNode.set(line.slice(NODE_MARK.length), cur);
    } else if (line.startsWith(RC_MARK) && cur) {
      cur.rc = Number(line.slice(RC_MARK.length));
      cur = null;
    } else if (cur) {
      cur.text.push(line);
    }
  }
  return nodes.map((n) => {
    const got = byNode.get(n);
    if (!got) return { node: n, at, gpus: [], error: `${n}: no answer from the fan-out script` };
    return parseGpuAnswer(n, got.text.join('\n'), got.rc, at);
  });
}

export interface GpuPollerOptions {
  /** Node hostnames as the head resolves them; omit to ask the transport's host itself. */
  nodes?: string[];
  intervalMs?: number;
  onSnapshot: (snapshots: GpuSnapshot[]) => void;
  now?: () => number;
}

export class GpuPoller {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private inFlight: AbortController | null = null;

  constructor(
    private readonly transport: Pick<Transport, 'exec' | 'target'>,
    private readonly opts: GpuPollerOptions,
  ) {}

  /** One round: one exec, one snapshot per node. Never rejects. */
  async pollOnce(): Promise<GpuSnapshot[]> {
    const now = this.opts.now ?? Date.now;
    const nodes = this.opts.nodes ?? [];
    const ac = new AbortController();
    this.inFlight = ac;
    try {
      const r = await this.transport.exec(gpuCommand(nodes), { signal: ac.signal });
      const at = now();
      const out = r.stdout.toString('utf8');
      if (nodes.length === 0) return [parseGpuAnswer(this.transport.target, out + r.stderr.toString('utf8'), r.code, at)];
      return parseFanOut(nodes, out, at);
    } catch (e) {
      const at = now();
      const msg = `cannot reach ${this.transport.target}: ${e instanceof Error ? e.message : String(e)}`;
      const names = nodes.length ? nodes : [this.transport.target];
      return names.map((node) => ({ node, at, gpus: [], error: msg }));
    } finally {
      this.inFlight = null;
    }
  }

  /** Polls now and then every intervalMs after each answer (rounds never overlap). */
  start(): void {
    if (this.running) return;
    this.running = true;
    const tick = async () => {
      if (!this.running) return;
      const snaps = await this.pollOnce();
      if (!this.running) return;
      this.opts.onSnapshot(snaps);
      this.timer = setTimeout(tick, this.opts.intervalMs ?? 2000);
    };
    void tick();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.inFlight?.abort();
  }
}
