// GPUs per node against the config, and memory already held on them (by whom, and whether it is a
// leftover of another awrl run: its processes carry AWRL_RUN_ID).
import { cfg, type PreflightInput } from './input.js';
import { parseSmiCsv, type SmiValue } from '../gpu/nvidia-smi.js';
import type { CheckResult, GpuNodeFacts } from './types.js';
import { otherRunWords, otherRunsAdvice, type OtherRunStatus } from './other-runs.js';

/** Below this a GPU counts as idle: the driver and a display context hold a few hundred MiB. */
const BUSY_MIB = 1024;

interface GpuRow {
  index: number;
  uuid: string;
  name: string;
  usedMiB: number | null;
  totalMiB: number | null;
}

interface AppRow {
  pid: number;
  gpuUuid: string;
  usedMiB: number | null;
  name: string;
}

// The probe's two queries (--format=csv,noheader,nounits), read with src/gpu's nvidia-smi parser.
const GPU_FIELDS = ['index', 'uuid', 'name', 'memory.used', 'memory.total'];
const APP_FIELDS = ['pid', 'gpu_uuid', 'used_memory', 'process_name'];
const numOrNull = (v: SmiValue | undefined): number | null => (typeof v === 'number' ? v : null);
const text = (v: SmiValue | undefined): string => (v === null || v === undefined ? '' : String(v));

function parseGpuRows(out: string): GpuRow[] {
  // Rows without a numeric index are not GPUs ("No devices were found", a stray warning).
  return parseSmiCsv(out, { fields: GPU_FIELDS, header: false })
    .rows.filter((r) => typeof r.index === 'number')
    .map((r) => ({
      index: r.index as number,
      uuid: text(r.uuid),
      name: text(r.name),
      usedMiB: numOrNull(r['memory.used']),
      totalMiB: numOrNull(r['memory.total']),
    }));
}

function parseAppRows(out: string): AppRow[] {
  return parseSmiCsv(out, { fields: APP_FIELDS, header: false })
    .rows.filter((r) => typeof r.pid === 'number')
    .map((r) => ({
      pid: r.pid as number,
      gpuUuid: text(r.gpu_uuid),
      usedMiB: numOrNull(r.used_memory),
      name: text(r.process_name),
    }));
}

interface NodeGpus {
  node: string;
  gpus: GpuRow[];
  apps: AppRow[];
  error: string | null;
}

const nodeLabel = (n: string, head: string): string => (n === '' ? head : n);

function readNode(n: GpuNodeFacts): NodeGpus {
  if (!n.gpus.ok) {
    const error =
      n.gpus.rc === 127 ? 'nvidia-smi not found' : n.gpus.out.trim().split('\n')[0] || `nvidia-smi exit ${n.gpus.rc}`;
    return { node: n.node, gpus: [], apps: [], error };
  }
  try {
    return {
      node: n.node,
      gpus: parseGpuRows(n.gpus.out),
      apps: n.apps.ok ? parseAppRows(n.apps.out) : [],
      error: null,
    };
  } catch (e) {
    return { node: n.node, gpus: [], apps: [], error: (e as Error).message }; // e.g. an unknown query field
  }
}

function describeModels(gpus: GpuRow[]): string {
  const byName = new Map<string, number>();
  for (const g of gpus) byName.set(g.name, (byName.get(g.name) ?? 0) + 1);
  return [...byName].map(([name, n]) => `${n} × ${name}`).join(' + ');
}

export function checkGpus(input: PreflightInput): CheckResult {
  const { facts: f, resolved, target } = input;
  const perNode = Number(cfg(resolved, 'cluster.n_gpus_per_node'));
  const nNodes = Number(cfg(resolved, 'cluster.n_nodes')) || 1;
  const nodes = f.gpuNodes.map(readNode);
  const head = nodes[0];
  if (target.backend === 'slurm') {
    // The login node is not where the job runs; Slurm places it on nodes with the GPUs asked for.
    const ask = target.slurm.gpusPerNode;
    if (ask !== undefined && perNode > 0 && ask !== perNode) {
      return {
        id: 'gpus',
        result: 'warning',
        seen: `the target asks Slurm for ${ask} GPUs per node but cluster.n_gpus_per_node is ${perNode}`,
        todo: "Make the target's gpus_per_node and cluster.n_gpus_per_node agree, or the trainer will place workers on GPUs it does not have.",
      };
    }
    const jobNodes = slurmJobNodes(f);
    if (jobNodes) return checkJobNodeGpus(jobNodes, f.slurm.testNodeList ?? '', perNode);
    const seen =
      head && head.gpus.length > 0
        ? `login node ${f.host}: ${describeModels(head.gpus)}; the job gets its GPUs from Slurm`
        : `no GPUs on the login node ${f.host}; the job gets its GPUs from Slurm`;
    // sbatch --test-only accepted the job but named no node: its GPUs are not checked, say so.
    const unchecked =
      f.slurm.testOnly.ok && f.slurm.testNodeList === ''
        ? "; the job's nodes are unknown (sbatch --test-only named none): their GPUs not checked"
        : '';
    return { id: 'gpus', result: 'ok', seen: seen + unchecked, todo: '' };
  }
  const problems: string[] = [];
  const seenParts: string[] = [];
  let total = 0;
  for (const n of nodes) {
    const label = nodeLabel(n.node, f.host);
    if (n.error) {
      problems.push(`${label}: ${n.error}`);
      continue;
    }
    total += n.gpus.length;
    seenParts.push(`${label}: ${n.gpus.length > 0 ? describeModels(n.gpus) : 'no GPUs'}`);
    if (perNode > 0 && n.gpus.length < perNode)
      problems.push(`${label} has ${n.gpus.length} GPUs but cluster.n_gpus_per_node is ${perNode}`);
    if (new Set(n.gpus.map((g) => g.name)).size > 1) seenParts.push(`${label} mixes GPU models`);
  }
  // Nodes not asked (a multi-node direct run whose other nodes are unknown) are NOT assumed like the
  // head: their GPUs are unknown, and the count is compared only when every node was asked.
  const probedNodes = nodes.filter((n) => !n.error).length;
  const unchecked = Math.max(0, nNodes - nodes.length);
  const capacity = total;
  const need = input.allocationGpus;
  // No node answered: no count to compare (the node errors say why); the need is still said.
  const short = need !== null && probedNodes > 0 && unchecked === 0 && need > capacity;
  if (short) {
    const have = probedNodes < nodes.length ? 'the nodes that answered have' : 'the target has';
    problems.push(`allocation_mode needs ${need} GPUs but ${have} ${capacity}`);
  }
  if (unchecked > 0)
    seenParts.push(
      `${unchecked} of the ${nNodes} nodes not checked (unknown: name them with --node, or start the Ray cluster before launching)`,
    );
  // The need is said once: in the problem when it is short, otherwise beside what was seen.
  const seen = [...seenParts, ...(need !== null && !short ? [`allocation_mode needs ${need}`] : [])].join('; ');
  if (problems.length > 0) {
    return {
      id: 'gpus',
      result: 'error',
      seen: [...problems, ...(seen ? [seen] : [])].join('; '),
      todo: 'Run on nodes with enough GPUs (check nvidia-smi there), or change allocation_mode / cluster.n_gpus_per_node / cluster.n_nodes to what the nodes have.',
    };
  }
  if (unchecked > 0)
    return {
      id: 'gpus',
      result: 'warning',
      seen,
      todo: "Give the run's nodes with --node (or start its Ray cluster first, so they are discovered): pre-flight then checks each of them.",
    };
  if (perNode > 0 && nodes.some((n) => !n.error && n.gpus.length > perNode)) {
    return {
      id: 'gpus',
      result: 'warning',
      seen: `${seen}; cluster.n_gpus_per_node is ${perNode}, so some GPUs stay unused`,
      todo: 'Raise cluster.n_gpus_per_node (and allocation_mode) to use every GPU, if that is intended.',
    };
  }
  return { id: 'gpus', result: 'ok', seen, todo: '' };
}

/** A Slurm job's nodes as `sbatch --test-only` named them, asked over ssh by the probe (null: none). */
function slurmJobNodes(f: PreflightInput['facts']): NodeGpus[] | null {
  const t = f.slurm.testNodes;
  return t && t.length > 0 ? t.map(readNode) : null;
}

function checkJobNodeGpus(nodes: NodeGpus[], list: string, perNode: number): CheckResult {
  const problems: string[] = [];
  const seen: string[] = [];
  for (const n of nodes) {
    if (n.error) problems.push(`${n.node}: ${n.error}`);
    else {
      seen.push(`${n.node}: ${n.gpus.length > 0 ? describeModels(n.gpus) : 'no GPUs'}`);
      if (perNode > 0 && n.gpus.length < perNode)
        problems.push(`${n.node} has ${n.gpus.length} GPUs but cluster.n_gpus_per_node is ${perNode}`);
    }
  }
  const head = `the job's nodes (sbatch --test-only: ${list}): `;
  if (problems.length > 0) {
    return {
      id: 'gpus',
      result: 'error',
      seen: head + [...problems, ...seen].join('; '),
      todo: 'Check those nodes (nvidia-smi there, and that the head can ssh to them without a password), or change cluster.n_gpus_per_node to what they have.',
    };
  }
  return { id: 'gpus', result: 'ok', seen: head + seen.join('; '), todo: '' };
}

/** `kill 110 120` on the head; `kill 110 on n3, kill 120 on n2` when the PIDs are on other nodes
 *  (a bare PID on n3 would read as the head's). */
function killAdvice(byNode: Map<string, number[]>, head: string): string {
  const entries = [...byNode].filter(([, p]) => p.length > 0);
  if (entries.length === 0) return 'kill …';
  if (entries.length === 1 && entries[0][0] === head) return `kill ${entries[0][1].join(' ')}`;
  return entries.map(([n, p]) => `kill ${p.join(' ')} on ${n}`).join(', ');
}

export function checkGpuMemory(input: PreflightInput): CheckResult {
  const { facts: f, target, runId, otherRuns } = input;
  // A Slurm job's GPUs are on the nodes sbatch --test-only named, when the probe could ask them.
  const nodes = (target.backend === 'slurm' ? slurmJobNodes(f) : null) ?? f.gpuNodes.map(readNode);
  return gpuMemoryOf(
    nodes.filter((n) => !n.error && n.gpus.length > 0),
    f,
    target,
    runId,
    otherRuns ?? new Map(),
  );
}

function gpuMemoryOf(
  nodes: NodeGpus[],
  f: PreflightInput['facts'],
  target: PreflightInput['target'],
  runId: string | undefined,
  otherRuns: ReadonlyMap<string, OtherRunStatus>,
): CheckResult {
  if (nodes.length === 0) return { id: 'gpu-memory', result: 'ok', seen: 'no GPUs to inspect here', todo: '' };
  const procs = new Map(f.processes.map((p) => [p.pid, p]));
  const held: string[] = [];
  const taggedRuns = new Map<string, OtherRunStatus | undefined>();
  const pids = new Map<string, number[]>();
  for (const n of nodes) {
    const label = nodeLabel(n.node, f.host);
    if (!pids.has(label)) pids.set(label, []);
    for (const g of n.gpus) {
      const apps = n.apps.filter((a) => a.gpuUuid === g.uuid);
      if ((g.usedMiB ?? 0) < BUSY_MIB && apps.length === 0) continue;
      const who = apps.map((a) => {
        const p = n.node === '' ? procs.get(a.pid) : undefined;
        if (!pids.get(label)!.includes(a.pid)) pids.get(label)!.push(a.pid);
        let tag = '';
        if (p && p.runId && p.runId !== '?' && p.runId !== runId) {
          // Another run's: a leftover only once that run has ended (a running one is in use).
          tag = `, ${otherRunWords(p.runId, otherRuns.get(p.runId))}`;
          taggedRuns.set(p.runId, otherRuns.get(p.runId));
        } else if (p && p.runId === '?') tag = `, owned by ${p.user || 'another user'}`;
        const cmd = (p?.cmd || a.name).trim();
        return `PID ${a.pid} (${cmd}${a.usedMiB !== null ? `, ${a.usedMiB} MiB` : ''}${tag})`;
      });
      const mem = g.usedMiB !== null && g.totalMiB !== null ? `${g.usedMiB}/${g.totalMiB} MiB in use` : 'in use';
      held.push(
        `${label} GPU ${g.index}: ${mem}${who.length > 0 ? ` by ${who.join(', ')}` : ' by processes not visible here'}`,
      );
    }
  }
  if (held.length === 0) {
    const n = nodes.reduce((s, x) => s + x.gpus.length, 0);
    return { id: 'gpu-memory', result: 'ok', seen: `all ${n} GPUs free`, todo: '' };
  }
  const todo =
    taggedRuns.size > 0
      ? `${otherRunsAdvice(taggedRuns, target)} Other processes: stop them (${killAdvice(pids, f.host)}) or wait for them.`
      : `These GPUs are taken: stop the processes (${killAdvice(pids, f.host)}) if they are yours, or wait; SGLang and FSDP expect free GPUs and fail with CUDA out of memory.`;
  // On a Slurm login node the GPUs seen here are not the job's: worth knowing, not blocking.
  return { id: 'gpu-memory', result: target.backend === 'slurm' ? 'warning' : 'error', seen: held.join('; '), todo };
}
