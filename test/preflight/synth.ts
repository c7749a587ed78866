// Synthetic probe facts for the pure evaluation: a healthy single node with 8 idle H100s, then
// tests break one thing at a time.
import type { PreflightInput, ProbeFacts } from '../../src/preflight/index.js';

const ok = (out = '') => ({ ok: true, rc: 0, out });

export function gpuCsv(n: number, usedMiB: (i: number) => number = () => 0, name = 'NVIDIA H100 80GB HBM3'): string {
  return (
    Array.from(
      { length: n },
      (_, i) => `${i}, GPU-0000000${i}-aaaa-bbbb-cccc-dddddddddddd, ${name}, ${usedMiB(i)}, 81559`,
    ).join('\n') + '\n'
  );
}

export function facts(over: Partial<ProbeFacts> = {}): ProbeFacts {
  return {
    host: 'gpu-head',
    user: 'alice',
    workdir: { path: '/home/alice/webgym', exists: true, trainPy: true },
    setup: { given: false, ...ok() },
    python: { command: 'python3', ...ok('3.11.9\n') },
    model: {
      path: '/models/Qwen3-VL-8B-Instruct',
      exists: true,
      isDir: true,
      configJson: '{"architectures":["Qwen3VLForConditionalGeneration"],"torch_dtype":"bfloat16"}',
      safetensorsBytes: null,
    },
    datasets: [
      { path: '/data/webgym_tasks/train.jsonl', exists: true, lines: 2560 },
      { path: '/data/webgym_tasks/test.jsonl', exists: true, lines: 320 },
    ],
    gpuNodes: [{ node: '', gpus: ok(gpuCsv(8)), apps: ok('') }],
    processes: [],
    fileroot: {
      path: '/shared/fileroot',
      exists: true,
      testedDir: '/shared/fileroot',
      writable: true,
      availKB: 2_000_000_000,
    },
    recover: { path: '/shared/fileroot/checkpoints/alice/exp/trial/recover_info/step_info.json', content: null },
    slurm: { asked: false, sinfo: { ok: false, rc: 0, out: '' }, testOnly: { ok: false, rc: 0, out: '' } },
    ...over,
  };
}

/** A single-node config in the shape the config engine resolves (only the keys preflight reads). */
export function resolved(over: Record<string, any> = {}): Record<string, any> {
  const base: Record<string, any> = {
    allocation_mode: 'sglang[rollout]:d4+fsdp[actor]:d4',
    total_train_epochs: 10,
    cluster: { n_nodes: 1, n_gpus_per_node: 8, fileroot: '/shared/fileroot' },
    actor: { path: '/models/Qwen3-VL-8B-Instruct' },
    train_dataset: { path: '/data/webgym_tasks/train.jsonl', batch_size: 128 },
    valid_dataset: { path: '/data/webgym_tasks/test.jsonl', batch_size: 32 },
    recover: { freq_secs: 1200 },
    test_rollout: { enabled: false, n_gpus: 8 },
  };
  for (const [k, v] of Object.entries(over)) {
    const path = k.split('.');
    let o = base;
    for (const p of path.slice(0, -1)) o = o[p] ??= {};
    o[path[path.length - 1]] = v;
  }
  return base;
}

export function input(over: Partial<PreflightInput> = {}): PreflightInput {
  return {
    facts: facts(),
    resolved: resolved(),
    experimentName: 'exp',
    trialName: 'trial',
    target: { name: 'h100', backend: 'direct', workdir: '/home/alice/webgym', python: 'python3', slurm: {} },
    allocationGpus: 8,
    secrets: [{ name: 'CPU_CLUSTER_TOKEN', required: true, why: 'Omniboxes token' }],
    envNames: new Set(['CPU_CLUSTER_TOKEN']),
    ...over,
  };
}
