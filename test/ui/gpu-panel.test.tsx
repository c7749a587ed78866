// The GPU panel with several nodes, drawn through Ink: nodes grouped under their name; a node that
// could not be asked is one "unreachable" line (never zero GPUs); a node's kept figures are dim with
// their age; a short panel summarises each node on one line and never spills out of its box.
import { describe, expect, it } from 'vitest';
import { lineText, type Seg } from '../../src/ui/lines.js';
import { gpuLines, gpuSummary, nodeProblem, shortGpuName } from '../../src/ui/panels/gpu.js';
import type { GpuInfo, GpuSnapshot } from '../../src/session/types.js';
import { drawLines } from './draw-lines.js';
import { gpuView } from '../../src/session/run-gpu-scope.js';
import { parseGpuAnswer } from '../../src/gpu/poller.js';

const draw = drawLines;

const H100 = 'NVIDIA H100 80GB HBM3';
const gpus = (used: number[], util: number[] = used.map(() => 95)): GpuInfo[] =>
  used.map((gb, i) => ({ index: i, name: H100, usedMiB: gb * 1024, totalMiB: 81559, utilPct: util[i] }));

const head: GpuSnapshot = { node: 'head-0', at: 17_000, gpus: gpus([10, 11]) };
const staleNode: GpuSnapshot = {
  node: 'node2',
  at: 17_000,
  gpus: gpus([68, 69, 70, 71], [97, 97, 97, 97]),
  unreachable: true,
  stale: true,
  figuresAt: 10_000,
  error: 'node2: no answer within 20 s (its figures are 7 s old)',
};
const unreachable: GpuSnapshot = {
  node: 'node3',
  at: 17_000,
  gpus: [],
  unreachable: true,
  error:
    'node3: ssh to the node failed (check that the head can ssh to it without a password): ssh: connect to host 127.0.0.3 port 22: Connection refused',
};

/** The lines of the frame that belong to `node` (its label line and its unlabelled continuations). */
function rowsOf(frame: string, node: string): string[] {
  const lines = frame.split('\n');
  const i = lines.findIndex((l) => l.startsWith(`${node} `));
  if (i < 0) return [];
  const out = [lines[i]];
  for (const l of lines.slice(i + 1)) {
    if (!/^\s/.test(l) || l.trim() === '') break;
    out.push(l);
  }
  return out;
}

describe('gpu panel: several nodes', () => {
  it('groups GPUs under their node; an unreachable node is one line, never zero GPUs', () => {
    const f = draw(gpuLines({ nodes: [head, unreachable], memory: [] }, 100, 8), 100, 8);
    expect(f).toMatch(/─ GPU memory ─+ 2 nodes · 2 GPUs · 1 unreachable ─/);
    expect(f).toMatch(/^head-0\s+0\s+[█░]{8} 10\/80G\s+1\s+[█░]{8} 11\/80G/m);
    expect(rowsOf(f, 'node3')).toEqual([
      expect.stringMatching(
        /^node3\s+unreachable: ssh to the node failed \(check that the head can ssh to it without a password\):…$/,
      ),
    ]);
    // The node's name is the label: not said again in the reason.
    expect(f).not.toContain('unreachable: node3:');
    expect(f).not.toMatch(/node3.*(0 GPUs|n\/a|\/80G)/);
  });

  it('a stale node keeps its figures, dim, with their age and why (bars, then a summary line when short)', () => {
    const nodes = [head, staleNode, unreachable];
    const tall = gpuLines({ nodes, memory: [] }, 110, 10);
    const f = draw(tall, 110, 10);
    expect(f).toMatch(/3 nodes · 6 GPUs · 2 unreachable · 1 stale/);
    const rows = rowsOf(f, 'node2');
    expect(rows[0]).toMatch(
      /^node2\s+0\s+[█░]{8} 68\/80G\s+1\s+[█░]{8} 69\/80G\s+2\s+[█░]{8} 70\/80G\s+3\s+[█░]{8} 71\/80G/,
    );
    expect(rows[1]).toMatch(/^\s+\(7 s old\) unreachable: no answer within 20 s$/);
    expect(f).not.toContain('its figures are');
    // The kept figures are dim; the head's live ones are coloured by how full they are.
    const node2Segs = (tall.find((l) => lineText(l).startsWith('node2')) as Seg[]).slice(1);
    expect(node2Segs.every((s) => s.c === 'dim')).toBe(true);
    const headSegs = tall.find((l) => lineText(l).startsWith('head-0')) as Seg[];
    expect(headSegs.some((s) => s.c === 'good')).toBe(true);

    // 4 rows: no room for the bars and the marker line; one summary line per node.
    const short = gpuLines({ nodes, memory: [] }, 110, 4);
    const s = draw(short, 110, 4);
    expect(s.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^head-0\s+2× H100 {2}mem 10–11\/80 GB {2}util 95%$/),
      expect.stringMatching(
        /^node2\s+4× H100 {2}mem 68–71\/80 GB {2}util 97% {2}\(7 s old\) unreachable: no answer within 20 s$/,
      ),
      expect.stringMatching(/^node3\s+unreachable: ssh to the node failed/),
    ]);
    const summarySegs = short.find((l) => lineText(l).startsWith('node2')) as Seg[];
    expect(summarySegs.filter((x) => /H100|mem|util/.test(x.t)).every((x) => x.c === 'dim')).toBe(true);
    expect(summarySegs.find((x) => x.t.includes('7 s old'))?.c).toBe('warn');
  });

  it('a stale node that answered but whose nvidia-smi failed says why without "unreachable"', () => {
    const n: GpuSnapshot = {
      node: 'gpu-1',
      at: 65_000,
      gpus: gpus([5]),
      stale: true,
      figuresAt: 23_000,
      error: 'gpu-1: nvidia-smi is not installed or not on PATH there (its figures are 42 s old)',
    };
    expect(nodeProblem(n)).toBe('nvidia-smi is not installed or not on PATH there');
    const f = draw(gpuLines({ nodes: [head, n], memory: [] }, 90, 8), 90, 8);
    expect(rowsOf(f, 'gpu-1')[1]).toMatch(/^\s+\(42 s old\) nvidia-smi is not installed or not on PATH there$/);
  });

  it('a node with a GPU fallen off the bus shows the others fresh and says which GPU is lost and what to do', () => {
    const lost: GpuSnapshot = {
      node: 'node4',
      at: 50_000,
      gpus: gpus([60, 61, 62, 63, 64, 65, 66]),
      lostGpus: ['0000:3B:00.0'],
      error:
        "node4: nvidia-smi cannot reach GPU 0000:3B:00.0: it has likely fallen off the bus (dmesg shows Xid 79); the node needs a GPU reset or a reboot, and the run's ranks on it will fail",
    };
    const tall = draw(gpuLines({ nodes: [head, lost], memory: [] }, 120, 10), 120, 10);
    expect(tall).toMatch(/─ GPU memory ─+ 2 nodes · 9 GPUs · 1 GPU lost ─/);
    const rows = rowsOf(tall, 'node4');
    expect(rows.at(-1)).toMatch(/^\s+nvidia-smi cannot reach GPU 0000:3B:00\.0: it has likely fallen off the bus/);
    expect(rows[0]).not.toContain('old'); // fresh figures, not stale ones
    // Short of room: the summary line says it too, and a hidden node's trouble is counted.
    const short = draw(gpuLines({ nodes: [head, lost], memory: [] }, 120, 3), 120, 3).split('\n');
    expect(short[2]).toMatch(/^node4\s+7× H100 .* nvidia-smi cannot reach GPU 0000:3B:00\.0/);
    const many = [head, ...Array.from({ length: 5 }, (_, i) => ({ ...head, node: `n${i}` })), lost];
    expect(draw(gpuLines({ nodes: many, memory: [] }, 80, 4), 80, 4)).toMatch(/… 5 more nodes \(1 failing\)/);
  });

  it("the poller's answer for such a node reaches the panel with its lost GPU (gpuView)", () => {
    const rows = Array.from({ length: 7 }, (_, i) => `${i}, NVIDIA H200, ${1000 + i}, 143771, 0`).join('\n');
    const polled = parseGpuAnswer(
      'node4',
      `Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\n${rows}\n`,
      0,
      1,
    );
    const v = gpuView(polled);
    expect(v.lostGpus).toEqual(['0000:3B:00.0']);
    expect(v.gpus).toHaveLength(7);
    expect(draw(gpuLines({ nodes: [v], memory: [] }, 120, 8), 120, 8)).toMatch(/1 GPU lost/);
  });

  it('8 nodes × 8 H100 in a short panel: one summary line per node, then a count of the rest naming their problems', () => {
    const nodes: GpuSnapshot[] = Array.from({ length: 8 }, (_, n) => ({
      node: `node${n}`,
      at: 50_000,
      gpus: gpus([62, 63, 64, 65, 66, 67, 70, 71], [93, 94, 95, 96, 97, 98, 99, 100]),
    }));
    nodes[6] = {
      ...nodes[6],
      stale: true,
      unreachable: true,
      figuresAt: 30_000,
      error: 'node6: no answer within 30 s (its figures are 20 s old)',
    };
    nodes[7] = {
      node: 'node7',
      at: 50_000,
      gpus: [],
      unreachable: true,
      error: 'node7: ssh to the node failed (check that the head can ssh to it without a password)',
    };

    const nine = draw(
      gpuLines(
        { nodes, memory: [{ phase: 'ppo update', allocatedGB: 30.1, reservedGB: 70.2, usedGB: 74, totalGB: 79.11 }] },
        80,
        9,
      ),
      80,
      9,
    ).split('\n');
    expect(nine[0]).toMatch(/8 nodes · 56 GPUs · 2 unreachable · 1 stale/);
    expect(nine[1]).toBe('node0  8× H100  mem 62–71/80 GB  util 93–100%');
    expect(nine[7]).toMatch(
      /^node6 {2}8× H100  mem 62–71\/80 GB  util 93–100% {2}\(20 s old\) unreachable: no answe…$/,
    );
    expect(nine[8]).toMatch(/^node7 {2}unreachable: ssh to the node failed/);
    expect(nine.join('\n')).not.toContain('ppo update'); // the nodes come first

    const six = draw(gpuLines({ nodes, memory: [] }, 60, 6), 60, 6).split('\n');
    expect(six.slice(1, 5).map((l) => l.split(/\s+/)[0])).toEqual(['node0', 'node1', 'node2', 'node3']);
    expect(six[5]).toBe('… 4 more nodes (2 unreachable, 1 stale) (z: zoom)');

    // Every size stays in its box, and every node is either on a line or counted.
    for (const w of [30, 45, 80, 140]) {
      for (let h = 2; h <= 16; h++) {
        const f = draw(gpuLines({ nodes, memory: [] }, w, h), w, h);
        const shown = nodes.filter((n) => f.split('\n').some((l) => l.startsWith(`${n.node} `))).length;
        const counted = Number(/… (\d+) more nodes?/.exec(f)?.[1] ?? 0);
        expect(shown + counted, `${w}x${h}\n${f}`).toBe(8);
      }
    }
  });

  it('one node: bars while they fit, its summary when not', () => {
    const one: GpuSnapshot[] = [{ node: 'local', at: 0, gpus: gpus([40, 41, 42, 43, 44, 45, 46, 47]) }];
    const wide = draw(gpuLines({ nodes: one, memory: [] }, 200, 4), 200, 4);
    expect(wide).toMatch(/─ local · 8 GPUs ─/);
    expect(wide.match(/\d+\/80G/g)).toHaveLength(8);
    const narrow = draw(gpuLines({ nodes: one, memory: [] }, 50, 4), 50, 4);
    expect(narrow.split('\n')[1]).toBe('local  8× H100  mem 40–47/80 GB  util 95%');
  });

  it('a reachable node that lists no GPU says so', () => {
    const f = draw(gpuLines({ nodes: [head, { node: 'cpu-1', at: 0, gpus: [] }], memory: [] }, 80, 6), 80, 6);
    expect(rowsOf(f, 'cpu-1')).toEqual([expect.stringMatching(/^cpu-1\s+no GPU reported by nvidia-smi$/)]);
  });
});

describe('gpu summary words', () => {
  it('short model names and ranges', () => {
    expect(
      [
        'NVIDIA H100 80GB HBM3',
        'NVIDIA A100-SXM4-80GB',
        'NVIDIA GeForce RTX 4090',
        'Tesla V100-SXM2-32GB',
        'NVIDIA H200',
      ].map(shortGpuName),
    ).toEqual(['H100', 'A100', 'RTX 4090', 'V100', 'H200']);
    const mixed = [
      ...gpus([1]),
      { index: 1, name: 'NVIDIA A100-SXM4-80GB', usedMiB: null, totalMiB: 81920, utilPct: null },
    ];
    expect(gpuSummary(mixed)).toMatchObject({ model: '2 GPUs', mem: 'mem 1/80 GB', util: 'util 95%' });
    expect(gpuSummary([{ index: 0, usedMiB: null, totalMiB: null }])).toMatchObject({
      model: '1 GPU',
      mem: 'mem n/a',
      util: '',
    });
  });
});
