// One node's GPUs in a few words, for a GPU panel too short for a bar per GPU:
// "8× H100", "mem 62–71/80 GB", "util 93–100%". Ranges (lowest–highest) rather than means: one GPU
// at 100% memory or idle is what a person looks for, and a mean hides it.
import type { PaletteName } from '../theme.js';
import type { GpuInfo } from '../../session/types.js';

/** "NVIDIA H100 80GB HBM3" -> "H100", "NVIDIA A100-SXM4-80GB" -> "A100", "NVIDIA GeForce RTX 4090" -> "RTX 4090". */
export function shortGpuName(name: string): string {
  const rest = name.trim().replace(/^(?:(?:NVIDIA|Tesla|GeForce|Quadro)\s+)+/i, '');
  const words = rest.split(/\s+/).filter(Boolean);
  if (words.length === 0) return name.trim();
  if (/^(RTX|GTX|TITAN)$/i.test(words[0]) && words[1]) return `${words[0]} ${words[1]}`;
  return words[0].split('-')[0] || words[0];
}

/** Memory share -> colour, the same thresholds as the bars. */
export function shareColor(share: number): PaletteName {
  return !Number.isFinite(share) ? 'dim' : share > 0.95 ? 'bad' : share > 0.8 ? 'warn' : 'good';
}

const range = (xs: number[]) => {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo === hi ? `${lo}` : `${lo}–${hi}`;
};

export interface GpuSummary {
  /** "8× H100", or "8 GPUs" when the models differ or are unknown. */
  model: string;
  /** "mem 62–71/80 GB", "mem n/a". */
  mem: string;
  /** "util 93–100%", or '' when nvidia-smi gave none. */
  util: string;
  /** The fullest GPU's used/total (NaN when unknown): the line's colour. */
  worstShare: number;
}

export function gpuSummary(gpus: readonly GpuInfo[]): GpuSummary {
  const names = new Set(gpus.map((g) => (g.name ? shortGpuName(g.name) : '')));
  const only = names.size === 1 ? [...names][0] : '';
  const model = only ? `${gpus.length}× ${only}` : `${gpus.length} GPU${gpus.length === 1 ? '' : 's'}`;
  const used = gpus.flatMap((g) => (g.usedMiB !== null ? [Math.round(g.usedMiB / 1024)] : []));
  const totals = gpus.flatMap((g) => (g.totalMiB ? [Math.round(g.totalMiB / 1024)] : []));
  const mem = used.length && totals.length ? `mem ${range(used)}/${Math.max(...totals)} GB` : 'mem n/a';
  const utils = gpus.flatMap((g) => (typeof g.utilPct === 'number' ? [Math.round(g.utilPct)] : []));
  const shares = gpus.flatMap((g) => (g.usedMiB !== null && g.totalMiB ? [g.usedMiB / g.totalMiB] : []));
  return {
    model,
    mem,
    util: utils.length ? `util ${range(utils)}%` : '',
    worstShare: shares.length ? Math.max(...shares) : NaN,
  };
}
