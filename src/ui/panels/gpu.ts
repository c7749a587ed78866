// GPU panel: every GPU of every node the run uses, grouped by node (the node's name labels its
// rows), then the trainer's own per-phase Memory-Usage figures. A bar per GPU while they fit the
// panel; one summary line per node when they do not (64 GPUs in a short panel), so every node stays
// in view. A node that could not be asked is ONE line "node3  unreachable: why": its GPUs are
// unknown, never drawn as zero GPUs. A node whose round failed keeps its last good figures, dim,
// with their age, so a blip (a slow ssh hop, a busy head) does not blank the panel.
import { bar, cell, fit, formatNumber } from '../format.js';
import { titleLine, type Line, type Seg } from '../lines.js';
import { textCells } from '../text-width.js';
import type { GpuInfo, GpuSnapshot, MemoryFigure } from '../../session/types.js';
import { gpuSummary, shareColor } from './gpu-summary.js';
import { keyOf } from '../key-names.js';

export { gpuSummary, shortGpuName } from './gpu-summary.js';

export interface GpuProps {
  nodes: GpuSnapshot[];
  memory: MemoryFigure[];
}

/** The poller's error without the node's name in front (the row label says it) and without the
 *  age it appends ("(its figures are 7 s old)"): the panel shows the age itself. */
export function nodeProblem(s: GpuSnapshot): string {
  let e = s.error ?? '';
  if (e.startsWith(`${s.node}: `)) e = e.slice(s.node.length + 2);
  return e.replace(/ \(its figures are \d+ s old\)$/, '');
}

/** "(42 s old) unreachable: no answer within 30 s": the age is the one at the failed round (`at`),
 *  so the panel redraws only when a round arrives, not with the clock. */
export function staleMarker(s: GpuSnapshot): string {
  const age =
    s.figuresAt !== undefined && s.at !== undefined
      ? `${Math.max(0, Math.round((s.at - s.figuresAt) / 1000))} s old`
      : 'old figures';
  const why = nodeProblem(s);
  return `(${age})${why ? ` ${s.unreachable ? 'unreachable: ' : ''}${why}` : ''}`;
}

/** What a node without figures shows instead: why, or that nvidia-smi listed none. */
function problemLine(s: GpuSnapshot, labelW: number, width: number): Line {
  const label: Seg = { t: cell(s.node, labelW), c: 'accent' };
  if (s.unreachable)
    return [label, { t: fit(`unreachable: ${nodeProblem(s) || 'no answer'}`, width - labelW), c: 'bad' }];
  if (s.error) return [label, { t: fit(nodeProblem(s), width - labelW), c: 'bad' }];
  return [label, { t: fit('no GPU reported by nvidia-smi', width - labelW), c: 'dim' }];
}

function gpuCell(g: GpuInfo, barW: number, stale: boolean): Seg[] {
  const used = g.usedMiB;
  const total = g.totalMiB;
  const share = used !== null && total ? used / total : NaN;
  const gb = used !== null && total ? `${Math.round(used / 1024)}/${Math.round(total / 1024)}G` : 'n/a';
  return [
    { t: cell(String(g.index), 3), c: stale ? 'dim' : undefined },
    { t: bar(share, barW), c: stale ? 'dim' : shareColor(share) },
    { t: ` ${cell(gb, 8)} `, c: stale ? 'dim' : undefined },
  ];
}

// A cell: "3 ██████░░ 61/80G  " = index (3) + bar + 10.
const BAR_W = 8;
const CELL_W = 3 + BAR_W + 10;

/** Bars, several GPUs per line; a stale node gets a line saying how old its figures are. */
function detailedLines(s: GpuSnapshot, labelW: number, width: number): Line[] {
  if (s.gpus.length === 0) return [problemLine(s, labelW, width)];
  const perLine = Math.max(1, Math.floor((width - labelW) / CELL_W));
  const out: Line[] = [];
  for (let i = 0; i < s.gpus.length; i += perLine) {
    const segs: Seg[] = [{ t: cell(i === 0 ? s.node : '', labelW), c: 'accent' }];
    for (const g of s.gpus.slice(i, i + perLine)) segs.push(...gpuCell(g, BAR_W, !!s.stale));
    out.push(segs);
  }
  if (s.stale) out.push([{ t: cell('', labelW) }, { t: fit(staleMarker(s), width - labelW), c: 'warn' }]);
  else if (s.error) out.push([{ t: cell('', labelW) }, { t: fit(nodeProblem(s), width - labelW), c: 'bad' }]);
  return out;
}

/** A node that answered, with GPUs, and still has a problem this round (a GPU fallen off the bus:
 *  the others' figures are fresh, the lost one is not among them). */
const troubled = (s: GpuSnapshot): boolean => !s.stale && !s.unreachable && !!s.error && s.gpus.length > 0;

/** "node7  8× H100  mem 62–71/80 GB  util 93–100%", dim with its age when stale. */
function summaryLine(s: GpuSnapshot, labelW: number, width: number): Line {
  if (s.gpus.length === 0) return problemLine(s, labelW, width);
  const sum = gpuSummary(s.gpus);
  const segs: Seg[] = [
    { t: cell(s.node, labelW), c: 'accent' },
    { t: `${sum.model}  `, c: s.stale ? 'dim' : undefined },
    { t: sum.mem, c: s.stale ? 'dim' : shareColor(sum.worstShare) },
  ];
  if (sum.util) segs.push({ t: `  ${sum.util}`, c: s.stale ? 'dim' : undefined });
  if (s.stale) segs.push({ t: `  ${staleMarker(s)}`, c: 'warn' });
  else if (s.error) segs.push({ t: `  ${nodeProblem(s)}`, c: 'bad' });
  const text = segs.map((x) => x.t).join('');
  // Cut the tail (the marker's reason first), never the label or the figures' start.
  if (text.length <= width) return segs;
  let left = width;
  return segs.map((x) => {
    const t = fit(x.t, Math.max(0, left));
    left -= t.length;
    return { ...x, t };
  });
}

function titleRight(nodes: GpuSnapshot[]): string {
  if (nodes.length === 0) return '';
  const gpus = nodes.reduce((n, s) => n + s.gpus.length, 0);
  const unreachable = nodes.filter((s) => s.unreachable).length;
  const stale = nodes.filter((s) => s.stale).length;
  const parts = [nodes.length > 1 ? `${nodes.length} nodes` : nodes[0].node, `${gpus} GPU${gpus === 1 ? '' : 's'}`];
  if (unreachable) parts.push(`${unreachable} unreachable`);
  if (stale) parts.push(`${stale} stale`);
  const lost = nodes.reduce((n, s) => n + (troubled(s) ? (s.lostGpus?.length ?? 0) : 0), 0);
  const failing = nodes.filter(troubled).length;
  if (lost) parts.push(`${lost} GPU${lost === 1 ? '' : 's'} lost`);
  else if (failing) parts.push(`${failing} failing`);
  return parts.join(' · ');
}

/** The node rows within `rows` lines: bars when they fit, else summaries, else as many summaries
 *  as fit and a line counting the rest (and their problems, which must not go unsaid). */
function nodeLines(nodes: GpuSnapshot[], width: number, rows: number): Line[] {
  if (rows <= 0) return [];
  const longest = Math.max(...nodes.map((s) => s.node.length));
  const labelW = Math.max(6, Math.min(longest + 2, Math.max(8, Math.floor(width / 3))));
  const detailed = nodes.flatMap((s) => detailedLines(s, labelW, width));
  if (detailed.length <= rows) return detailed;
  if (nodes.length <= rows) return nodes.map((s) => summaryLine(s, labelW, width));
  const shown = nodes.slice(0, rows - 1);
  const hidden = nodes.slice(rows - 1);
  const problems = [
    [hidden.filter((s) => s.unreachable).length, 'unreachable'],
    [hidden.filter((s) => s.stale).length, 'stale'],
    [hidden.filter(troubled).length, 'failing'],
  ] as const;
  const said = problems.filter(([n]) => n > 0).map(([n, w]) => `${n} ${w}`);
  const more: Line = [
    {
      t: fit(
        `… ${hidden.length} more node${hidden.length === 1 ? '' : 's'}${said.length ? ` (${said.join(', ')})` : ''} (${keyOf('zoom')}: zoom)`,
        width,
      ),
      c: said.length ? 'warn' : 'dim',
    },
  ];
  return [...shown.map((s) => summaryLine(s, labelW, width)), more];
}

/** The trainer's Memory-Usage figures by who logged them: the controller (DP head 0) first, then
 *  each worker source in the order it first logged; under each, its phases. */
export function memoryLines(memory: readonly MemoryFigure[], width: number): Line[] {
  const bySource = new Map<string, MemoryFigure[]>([['main', []]]);
  for (const m of memory) {
    const src = m.source ?? 'main';
    let list = bySource.get(src);
    if (list === undefined) bySource.set(src, (list = []));
    list.push(m);
  }
  const gb = (n: number | null) => formatNumber(n, 3);
  const figures = (m: MemoryFigure) =>
    ` alloc ${gb(m.allocatedGB)}  resv ${gb(m.reservedGB)}  used ${gb(m.usedGB)}/${gb(m.totalGB)} GB`;
  // The phase column gives way before the figures do: cut at the row's end, the total was lost.
  const widest = Math.max(0, ...memory.map((m) => textCells(figures(m))));
  const phaseW = Math.min(24, Math.max(8, width - widest));
  const out: Line[] = [];
  for (const [src, list] of bySource) {
    if (list.length === 0) continue;
    out.push([{ t: fit(src === 'main' ? 'trainer (DP head 0):' : `${src}:`, width), c: 'dim' }]);
    for (const m of list) out.push([{ t: cell(m.phase, phaseW) }, { t: figures(m) }]);
  }
  return out;
}

export function gpuLines(p: GpuProps, width: number, height: number): Line[] {
  const out: Line[] = [titleLine('GPU memory', width, titleRight(p.nodes))];
  if (p.nodes.length === 0)
    out.push([{ t: fit("no GPU data yet (nvidia-smi is polled on the run's nodes)", width), c: 'dim' }]);
  else out.push(...nodeLines(p.nodes, width, height - 1));
  // The trainer's figures only where room is left: the nodes come first.
  if (p.memory.length && out.length + 2 <= height) out.push(...memoryLines(p.memory, width));
  if (out.length > height && height > 1) {
    const hidden = out.length - height + 1;
    return [...out.slice(0, height - 1), [{ t: `… ${hidden} more lines (${keyOf('zoom')}: zoom)`, c: 'dim' }]];
  }
  return out;
}
