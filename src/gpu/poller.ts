// Polls GPU state through a Transport at a fixed cadence with ONE exec per round: on one node
// `nvidia-smi` itself; on several (a Slurm allocation, or the hosts of a direct Ray run, the head
// included), one bash script on the head that asks each node over ssh in parallel and prints each
// answer under a marker line naming the node (src/remote/node-fan-out.ts; never one SSH channel per
// node: OpenSSH allows 10 sessions per connection and each exec pays the login shell's start-up).
// A node that cannot be asked is reported unreachable (its GPUs unknown, not zero), and its last
// good figures are kept, marked stale, so a blip does not blank the panel.
import type { Transport } from '../remote/transport.js';
import {
  HEAD_NODE,
  NODE_NAME,
  nodeFanOutArgv,
  splitNodeAnswers,
  unreachableReason,
  type NodeFanOutOptions,
} from '../remote/node-fan-out.js';
import { parseSmiCsv, smiFieldError } from './nvidia-smi.js';

export const GPU_QUERY_FIELDS = ['index', 'name', 'memory.used', 'memory.total', 'utilization.gpu'] as const;
const SMI = ['nvidia-smi', `--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];

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
  /** This round's figures; when `stale`, the node's last good ones (read at `figuresAt`). */
  gpus: GpuSample[];
  /** Why this round has no figures for the node (it names the node). */
  error?: string;
  /** The node could not be asked (ssh failed, no answer in time, head unreachable): its GPUs are UNKNOWN, not zero. */
  unreachable?: true;
  /** `gpus` are from an earlier round because this one failed. */
  stale?: true;
  /** When the stale figures were read (ms, the poller's clock). */
  figuresAt?: number;
  /** PCI bus ids of GPUs nvidia-smi could not reach this round (fallen off the bus); `gpus` holds
   *  the others and `error` says what to do. */
  lostGpus?: string[];
}

export interface GpuCommandOptions extends NodeFanOutOptions {
  /** Shell line run on each node before nvidia-smi (the target's `setup`, e.g. `module load cuda`). */
  setup?: string;
  /** Poll the head's own GPUs too (without ssh), ahead of `nodes`: a direct multi-node (Ray) run. */
  includeHead?: boolean;
}

// What each node runs (through src/remote's fan-out): the setup line, then nvidia-smi. $1 = setup.
// 2>&1: nvidia-smi says a GPU fell off the bus ("Unable to determine the device handle …") beside
// the other GPUs' rows, and the fan-out keeps a node's stderr only when it exits non-zero.
const NODE_SCRIPT = ['[ -n "${1:-}" ] && { eval "$1"; } >/dev/null 2>&1', `${SMI.join(' ')} 2>&1`].join('\n');

/**
 * The argv of one polling round. No nodes (and no includeHead): nvidia-smi on the transport's own
 * host. Otherwise ONE command on the head that asks every node in parallel over ssh (the head
 * itself without ssh, listed as HEAD_NODE), each answer between marker lines (src/remote/node-fan-out.ts).
 */
export function gpuCommand(nodes?: readonly string[], opts: GpuCommandOptions = {}): string[] {
  const list = [...(opts.includeHead ? [HEAD_NODE] : []), ...(nodes ?? [])];
  if (list.length === 0) return opts.setup ? ['bash', '-c', NODE_SCRIPT, 'awrl-gpu', opts.setup] : [...SMI];
  return nodeFanOutArgv('awrl-gpu', NODE_SCRIPT, [opts.setup ?? ''], list, opts);
}

/** `Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error` (also `GPU 0000:…`,
 *  `… : GPU is lost. Reboot the system to recover this GPU`): printed among the other GPUs' rows. */
const LOST_GPU =
  /^Unable to (?:determine|detect) the device handle for GPU ?([0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f]+): *(.*)$/;

/** What to do about nvidia-smi's own failure texts (the node, not the cockpit, needs fixing). */
function failureHint(text: string, code: number | null): string {
  if (/Driver\/library version mismatch/.test(text))
    return 'the NVIDIA driver was updated without a reboot: reboot the node (or reload the nvidia kernel modules)';
  if (/couldn't communicate with the NVIDIA driver/.test(text)) return 'the NVIDIA driver is not loaded on the node';
  if (/No devices were found/.test(text))
    return 'nvidia-smi sees no GPU on the node (no GPU node, or the GPUs are hidden from this shell)';
  if (code === 127 || /not found/.test(text.trim().split('\n')[0] ?? ''))
    return 'nvidia-smi is not installed or not on PATH there';
  if (code === 255) return 'ssh to the node failed (check that the head can ssh to it without a password)';
  return `nvidia-smi exited with ${code}`;
}

/** The GPU rows of one node's answer, or an error that says what to do. Rows of the GPUs that
 *  answered are kept when another GPU cannot be reached (its bus id goes to `lostGpus`). */
export function parseGpuAnswer(node: string, text: string, code: number | null, at: number): GpuSnapshot {
  const fieldErr = smiFieldError(text);
  if (fieldErr) return { node, at, gpus: [], error: `${node}: ${fieldErr.message}` };
  let gpus: GpuSample[];
  let notes: string[];
  try {
    const t = parseSmiCsv(text, { fields: [...GPU_QUERY_FIELDS], header: false });
    notes = t.notes;
    // A row without a numeric index is not a GPU (a stray message split on a comma).
    gpus = t.rows
      .filter((r) => typeof r['index'] === 'number')
      .map((r) => ({
        index: r['index'] as number,
        name: r['name'] === null ? null : String(r['name']),
        memoryUsedMiB: typeof r['memory.used'] === 'number' ? r['memory.used'] : null,
        memoryTotalMiB: typeof r['memory.total'] === 'number' ? r['memory.total'] : null,
        utilizationPct: typeof r['utilization.gpu'] === 'number' ? r['utilization.gpu'] : null,
      }));
  } catch (e) {
    return { node, at, gpus: [], error: `${node}: ${e instanceof Error ? e.message : String(e)}` };
  }
  const lost = notes.map((n) => LOST_GPU.exec(n)).filter((m): m is RegExpExecArray => m !== null);
  if (lost.length > 0) {
    const which = lost.map((m) => `${m[1]}${m[2] ? ` (${m[2].replace(/\s+/g, ' ').trim()})` : ''}`).join(', ');
    const error = `${node}: nvidia-smi cannot reach GPU ${which}: it has likely fallen off the bus (dmesg shows Xid 79); the node needs a GPU reset or a reboot, and the run's ranks on it will fail`;
    return { node, at, gpus, error, lostGpus: lost.map((m) => m[1]) };
  }
  if (code !== 0 || gpus.length === 0) {
    const first = text.trim().split('\n')[0] ?? '';
    if (code === 0 && first === '')
      return { node, at, gpus: [], error: `${node}: nvidia-smi printed nothing (no GPU listed)` };
    const why = code === 0 ? 'nvidia-smi listed no GPU' : failureHint(text, code);
    return { node, at, gpus, error: `${node}: ${why}${first ? `: ${first}` : ''}` };
  }
  return { node, at, gpus };
}

/**
 * Splits the fan-out's output into one snapshot per node, in the order given. A node that could not
 * be reached (ssh failed, no answer in time, missing from the output) is `unreachable`, never a node
 * with zero GPUs. `names` maps a listed name to the one shown (HEAD_NODE -> the head's name).
 */
export function parseFanOut(
  nodes: readonly string[],
  stdout: string,
  at: number,
  names: ReadonlyMap<string, string> = new Map(),
  limitSec?: number,
): GpuSnapshot[] {
  const answers = splitNodeAnswers(stdout);
  return nodes.map((n) => {
    const node = names.get(n) ?? n;
    const got = answers.get(n);
    const why = unreachableReason(got, limitSec);
    if (why) {
      const said =
        got?.lines
          .map((l) => l.trim())
          .filter(Boolean)
          .pop() ?? '';
      return { node, at, gpus: [], unreachable: true, error: `${node}: ${why}${said ? `: ${said}` : ''}` };
    }
    return parseGpuAnswer(node, got!.lines.join('\n'), got!.rc, at);
  });
}

export interface GpuPollerOptions extends NodeFanOutOptions {
  /**
   * Node hostnames as the head resolves them (a Slurm allocation, or the hosts of a direct Ray run);
   * omit to ask the transport's host itself. Polled with ONE exec on the head per round.
   */
  nodes?: string[];
  /** With `nodes`: poll the head's own GPUs too (a direct run whose head is a node). */
  includeHead?: boolean;
  /** The head's name in snapshots (default: the transport's target). */
  headName?: string;
  /** Shell line run on each node before nvidia-smi (the target's `setup`). */
  setup?: string;
  intervalMs?: number;
  onSnapshot: (snapshots: GpuSnapshot[]) => void;
  now?: () => number;
}

export class GpuPoller {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private inFlight: AbortController | null = null;
  /** Each node's last good figures, shown (marked stale) while the node does not answer. */
  private readonly lastGood = new Map<string, { gpus: GpuSample[]; at: number }>();

  constructor(
    private readonly transport: Pick<Transport, 'exec' | 'target'>,
    private readonly opts: GpuPollerOptions,
  ) {}

  /** One round: one exec, one snapshot per node (head first when included). Never rejects. */
  async pollOnce(): Promise<GpuSnapshot[]> {
    const now = this.opts.now ?? Date.now;
    const headName = this.opts.headName ?? this.transport.target;
    const given = [...new Set(this.opts.nodes ?? [])];
    // A bad name (from a user's host list) is reported on its own line, never passed to ssh.
    const bad = given.filter((n) => !NODE_NAME.test(n));
    const nodes = given.filter((n) => NODE_NAME.test(n));
    const fanOut = given.length > 0;
    const listed = fanOut ? [...(this.opts.includeHead ? [HEAD_NODE] : []), ...nodes] : [];
    const shown = (n: string) => (n === HEAD_NODE ? headName : n);
    const ac = new AbortController();
    this.inFlight = ac;
    let snaps: GpuSnapshot[];
    try {
      if (fanOut && listed.length === 0) snaps = [];
      else {
        const argv = fanOut
          ? gpuCommand(listed, { ...this.opts, includeHead: false })
          : gpuCommand(undefined, { setup: this.opts.setup });
        const r = await this.transport.exec(argv, { signal: ac.signal });
        const at = now();
        const out = r.stdout.toString('utf8');
        snaps = fanOut
          ? parseFanOut(listed, out, at, new Map([[HEAD_NODE, headName]]), this.opts.nodeTimeoutSec)
          : [parseGpuAnswer(this.transport.target, out + r.stderr.toString('utf8'), r.code, at)];
      }
    } catch (e) {
      const at = now();
      const msg = `cannot reach ${this.transport.target}: ${e instanceof Error ? e.message : String(e)}`;
      const names = fanOut ? listed.map(shown) : [this.transport.target];
      snaps = names.map((node) => ({ node, at, gpus: [], unreachable: true as const, error: msg }));
    } finally {
      this.inFlight = null;
    }
    const at = now();
    const rejected = bad.map((node) => ({ node, at, gpus: [], error: `'${node}' is not a node name` }));
    return [...snaps.map((s) => this.withLastGood(s)), ...rejected];
  }

  private withLastGood(s: GpuSnapshot): GpuSnapshot {
    // A partial answer (some GPUs lost) is this round's truth: never papered over with old figures.
    if (!s.error || s.gpus.length > 0) {
      this.lastGood.set(s.node, { gpus: s.gpus, at: s.at });
      return s;
    }
    const last = this.lastGood.get(s.node);
    if (!last) return s;
    const age = Math.max(0, Math.round((s.at - last.at) / 1000));
    return {
      ...s,
      gpus: last.gpus,
      stale: true,
      figuresAt: last.at,
      error: `${s.error} (its figures are ${age} s old)`,
    };
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
