// GPU memory panel: live used/total bars for every GPU of every node, then the trainer's own
// per-phase Memory-Usage figures. Many GPUs (64) are packed several per line.
import { bar, cell, fit, formatNumber } from '../format.js';
import { titleLine, type Line, type Seg } from '../lines.js';
import type { GpuSnapshot, MemoryFigure } from '../session/types.js';

export interface GpuProps {
  nodes: GpuSnapshot[];
  memory: MemoryFigure[];
}

function gpuSeg(used: number | null, total: number | null, w: number): Seg[] {
  const share = used !== null && total ? used / total : NaN;
  const c = !Number.isFinite(share) ? 'dim' : share > 0.95 ? 'bad' : share > 0.8 ? 'warn' : 'good';
  const gb = used !== null && total ? `${Math.round(used / 1024)}/${Math.round(total / 1024)}G` : 'n/a';
  return [{ t: bar(share, w), c }, { t: ` ${cell(gb, 8)}` }];
}

export function gpuLines(p: GpuProps, width: number, height: number): Line[] {
  const out: Line[] = [titleLine('GPU memory', width)];
  if (p.nodes.length === 0) out.push([{ t: 'no GPU data yet (nvidia-smi is polled on the head node)', c: 'dim' }]);
  // A cell: "3 ██████░░ 61/80G  " = idx(3) + bar + 10.
  const barW = 8;
  const cellW = 3 + barW + 10;
  const perLine = Math.max(1, Math.floor((width - 10) / cellW));
  for (const n of p.nodes) {
    if (n.error) {
      out.push([{ t: cell(n.node, 10) }, { t: fit(n.error, width - 10), c: 'bad' }]);
      continue;
    }
    for (let i = 0; i < n.gpus.length; i += perLine) {
      const segs: Seg[] = [{ t: cell(i === 0 ? n.node : '', 10), c: 'accent' }];
      for (const g of n.gpus.slice(i, i + perLine)) {
        segs.push({ t: cell(String(g.index), 3) }, ...gpuSeg(g.usedMiB, g.totalMiB, barW), { t: ' ' });
      }
      out.push(segs);
    }
  }
  if (p.memory.length && out.length < height) {
    out.push([{ t: 'trainer (DP head 0): ', c: 'dim' }]);
    for (const m of p.memory) {
      out.push([
        { t: cell(m.phase, 24) },
        { t: ` alloc ${formatNumber(m.allocatedGB, 3)}  resv ${formatNumber(m.reservedGB, 3)}  used ${formatNumber(m.usedGB, 3)}/${formatNumber(m.totalGB, 3)} GB` },
      ]);
    }
  }
  if (out.length > height && height > 1) {
    const hidden = out.length - height + 1;
    return [...out.slice(0, height - 1), [{ t: `… ${hidden} more lines (z: zoom)`, c: 'dim' }]];
  }
  return out;
}
