// A fake `nvidia-smi` for one simulated node: answers `--query-gpu=…` and `--query-compute-apps=…`
// with `--format=csv[,noheader][,nounits]` exactly as the real one prints them (fixtures/nvidia-smi:
// `, ` separators, header names with units in brackets, units in every cell unless nounits, the
// canonical header name for aliases such as clocks.sm), with memory that follows the simulated
// trainer's phase. Unknown field: the real message and exit 2. Pure: state and time come in.
import type { SimState, StatePhase } from './state.js';
import { Rng } from './rng.js';

export interface GpuSnapshot {
  index: number;
  uuid: string;
  name: string;
  memUsedMiB: number;
  memTotalMiB: number;
  utilGpu: number;
  utilMem: number;
  temp: number;
  powerW: number;
  powerLimitW: number;
  smClockMHz: number;
  /** A compute process on the GPU, if any. */
  app: { pid: number; name: string; usedMiB: number } | null;
}

export const H100_TOTAL_MIB = 81559;

/** GiB the actor's torch process holds on its GPU in each phase (nvidia-smi sees reserved + context). */
const ACTOR_GIB: Record<StatePhase, number> = {
  starting: 20.7,
  rollout_wait: 63.5,
  recompute_logp: 65.0,
  ref_logp: 65.2,
  compute_advantages: 65.4,
  ppo_update: 73.5,
  update_weights: 66.2,
  save: 67.0,
  finished: 0,
  crashed: 0,
  stopped: 0,
};

/**
 * Which real process holds the run's GPUs on this node (the trainer on its own node, the node's Ray
 * process on a Ray worker): `null` = no process of the run lives here, so its GPUs are idle.
 * Without it (pure tests) the holder PIDs are made up as 40000 + global GPU index.
 */
export type HolderOf = (localIndex: number) => number | null;

/** The GPUs of simulated node `node` (0-based) at `nowMs`, given the trainer's state (null = no run). */
export function snapshot(
  state: SimState | null,
  node: number,
  nowMs: number,
  gpusPerNode = 8,
  holderOf?: HolderOf,
): GpuSnapshot[] {
  const per = state?.gpusPerNode ?? gpusPerNode;
  const live = state !== null && !['finished', 'crashed', 'stopped'].includes(state.phase);
  const rng = Rng.of(state?.seed ?? 0, node, Math.floor(nowMs / 1000));
  const out: GpuSnapshot[] = [];
  for (let i = 0; i < per; i++) {
    const global = node * per + i;
    const uuid = `GPU-${hex(global, 8)}-5a1e-4c0d-9b1e-${hex(global * 7919 + 12345, 12)}`;
    let used = 0;
    let util = 0;
    let app: GpuSnapshot['app'] = null;
    const holder = holderOf ? holderOf(i) : 40000 + global;
    if (live && state && holder !== null) {
      const isRollout = global < state.rolloutGpus;
      const isActor = !isRollout && global < state.rolloutGpus + state.actorGpus;
      if (isRollout) {
        // SGLang holds mem_fraction_static of the GPU from launch on; busy while rollouts run.
        used = Math.round(H100_TOTAL_MIB * 0.75 + 2100 + rng.uniform(-40, 40));
        util = state.phase === 'update_weights' ? rng.int(0, 10) : rng.int(55, 98);
      } else if (isActor) {
        used = Math.round(ACTOR_GIB[state.phase] * 1024 + rng.uniform(-300, 300));
        util = state.phase === 'ppo_update' || state.phase === 'recompute_logp' ? rng.int(85, 100) : rng.int(0, 8);
      }
      if (used > 0)
        app = { pid: holder, name: isRollout ? 'sglang::scheduler' : 'ray::RayRPCServer', usedMiB: used - 9 };
    }
    out.push({
      index: i,
      uuid,
      name: 'NVIDIA H100 80GB HBM3',
      memUsedMiB: used,
      memTotalMiB: H100_TOTAL_MIB,
      utilGpu: util,
      utilMem: Math.round(util * 0.6),
      temp: 34 + Math.round(util / 3) + rng.int(0, 2),
      powerW: 70 + util * 5.8 + rng.uniform(0, 3),
      powerLimitW: 700,
      smClockMHz: util > 0 ? 1980 : 345,
      app,
    });
  }
  return out;
}

/** A process that holds memory on a GPU outside any run (a leftover): `GPU PID MIB NAME` lines. */
export interface ExtraHolder {
  gpu: number;
  pid: number;
  usedMiB: number;
  name: string;
}

export function parseExtraHolders(text: string): ExtraHolder[] {
  return text
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 3 && f.slice(0, 3).every((x) => /^\d+$/.test(x)))
    .map((f) => ({
      gpu: Number(f[0]),
      pid: Number(f[1]),
      usedMiB: Number(f[2]),
      name: f.slice(3).join(' ') || 'python3',
    }));
}

/** The GPUs with the extra holders put on them (each adds its memory; the last one is the app shown). */
export function withExtraHolders(gpus: readonly GpuSnapshot[], extras: readonly ExtraHolder[]): GpuSnapshot[] {
  return gpus.map((g) => {
    const mine = extras.filter((e) => e.gpu === g.index);
    if (!mine.length) return g;
    const used = Math.min(g.memTotalMiB, g.memUsedMiB + mine.reduce((s, e) => s + e.usedMiB + 9, 0));
    const last = mine[mine.length - 1];
    return { ...g, memUsedMiB: used, app: { pid: last.pid, name: last.name, usedMiB: last.usedMiB } };
  });
}

function hex(n: number, width: number): string {
  return (Math.abs(Math.floor(n)) % 16 ** Math.min(width, 12)).toString(16).padStart(width, '0');
}

/** nvidia-smi's timestamp column: `2026/11/29 07:44:16.355` (local time). */
export function smiTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${d.getFullYear()}/${p(d.getMonth() + 1)}/${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

type Cell = { header: string; unit: string | null; value: (g: GpuSnapshot, now: number) => string };

const MiB = (n: number): string => String(n);
const GPU_FIELDS: Record<string, Cell> = {
  timestamp: { header: 'timestamp', unit: null, value: (_g, now) => smiTimestamp(now) },
  index: { header: 'index', unit: null, value: (g) => String(g.index) },
  uuid: { header: 'uuid', unit: null, value: (g) => g.uuid },
  gpu_uuid: { header: 'uuid', unit: null, value: (g) => g.uuid },
  name: { header: 'name', unit: null, value: (g) => g.name },
  gpu_name: { header: 'name', unit: null, value: (g) => g.name },
  'memory.used': { header: 'memory.used', unit: 'MiB', value: (g) => MiB(g.memUsedMiB) },
  'memory.total': { header: 'memory.total', unit: 'MiB', value: (g) => MiB(g.memTotalMiB) },
  'memory.free': { header: 'memory.free', unit: 'MiB', value: (g) => MiB(g.memTotalMiB - g.memUsedMiB - 615) },
  'utilization.gpu': { header: 'utilization.gpu', unit: '%', value: (g) => String(g.utilGpu) },
  'utilization.memory': { header: 'utilization.memory', unit: '%', value: (g) => String(g.utilMem) },
  'temperature.gpu': { header: 'temperature.gpu', unit: null, value: (g) => String(g.temp) },
  'power.draw': { header: 'power.draw', unit: 'W', value: (g) => g.powerW.toFixed(2) },
  'power.limit': { header: 'power.limit', unit: 'W', value: (g) => g.powerLimitW.toFixed(2) },
  'clocks.sm': { header: 'clocks.current.sm', unit: 'MHz', value: (g) => String(g.smClockMHz) },
  'clocks.current.sm': { header: 'clocks.current.sm', unit: 'MHz', value: (g) => String(g.smClockMHz) },
};

type AppRow = { g: GpuSnapshot; app: NonNullable<GpuSnapshot['app']> };
type AppCell = { header: string; unit: string | null; value: (r: AppRow, now: number) => string };
const APP_FIELDS: Record<string, AppCell> = {
  timestamp: { header: 'timestamp', unit: null, value: (_r, now) => smiTimestamp(now) },
  pid: { header: 'pid', unit: null, value: (r) => String(r.app.pid) },
  process_name: { header: 'process_name', unit: null, value: (r) => r.app.name },
  name: { header: 'process_name', unit: null, value: (r) => r.app.name },
  used_memory: { header: 'used_gpu_memory', unit: 'MiB', value: (r) => String(r.app.usedMiB) },
  used_gpu_memory: { header: 'used_gpu_memory', unit: 'MiB', value: (r) => String(r.app.usedMiB) },
  gpu_uuid: { header: 'gpu_uuid', unit: null, value: (r) => r.g.uuid },
  gpu_name: { header: 'gpu_name', unit: null, value: (r) => r.g.name },
};

export interface SmiAnswer {
  stdout: string;
  code: number;
}

const withUnit = (v: string, unit: string | null, nounits: boolean): string => (unit && !nounits ? `${v} ${unit}` : v);
const headerOf = (c: { header: string; unit: string | null }, nounits: boolean): string =>
  c.unit && !nounits ? `${c.header} [${c.unit}]` : c.header;

/** Answer one nvidia-smi invocation (argv without the program name). */
export function answer(argv: readonly string[], gpus: readonly GpuSnapshot[], nowMs: number): SmiAnswer {
  let query: { kind: 'gpu' | 'apps'; fields: string[] } | null = null;
  let format: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const take = (flag: string): string | null =>
      a.startsWith(flag + '=') ? a.slice(flag.length + 1) : a === flag ? (argv[++i] ?? '') : null;
    const qg = take('--query-gpu');
    if (qg !== null) {
      query = { kind: 'gpu', fields: qg.split(',').map((s) => s.trim()) };
      continue;
    }
    const qa = take('--query-compute-apps');
    if (qa !== null) {
      query = { kind: 'apps', fields: qa.split(',').map((s) => s.trim()) };
      continue;
    }
    const fm = take('--format');
    if (fm !== null) {
      format = fm.split(',').map((s) => s.trim());
      continue;
    }
    if (a === '-L' || a === '--list-gpus') {
      return { code: 0, stdout: gpus.map((g) => `GPU ${g.index}: ${g.name} (UUID: ${g.uuid})\n`).join('') };
    }
  }
  if (!query) {
    return {
      code: 0,
      stdout:
        'NVIDIA-SMI 580.95.05 (awrl-tui simulator): use --query-gpu=... or --query-compute-apps=... with --format=csv\n',
    };
  }
  if (!format || !format.includes('csv')) return { code: 2, stdout: '"--format" must be specified when querying.\n\n' };
  const noheader = format.includes('noheader');
  const nounits = format.includes('nounits');
  const table = query.kind === 'gpu' ? GPU_FIELDS : APP_FIELDS;
  for (const f of query.fields) {
    if (!(f in table)) return { code: 2, stdout: `Field "${f}" is not a valid field to query.\n\n` };
  }
  const lines: string[] = [];
  if (!noheader) lines.push(query.fields.map((f) => headerOf(table[f], nounits)).join(', '));
  if (query.kind === 'gpu') {
    for (const g of gpus)
      lines.push(
        query.fields.map((f) => withUnit(GPU_FIELDS[f].value(g, nowMs), GPU_FIELDS[f].unit, nounits)).join(', '),
      );
  } else {
    for (const g of gpus) {
      if (!g.app) continue;
      const r: AppRow = { g, app: g.app };
      lines.push(
        query.fields.map((f) => withUnit(APP_FIELDS[f].value(r, nowMs), APP_FIELDS[f].unit, nounits)).join(', '),
      );
    }
  }
  return { code: 0, stdout: lines.map((l) => l + '\n').join('') };
}
