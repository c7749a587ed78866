// Runs the probe script over a Transport in ONE exec and returns its facts. The only I/O of preflight.
import type { Transport } from '../remote/transport.js';
import { PROBE_SCRIPT } from './probe-script.js';
import type { ProbeFacts } from './types.js';

export interface ProbeParams {
  workdir: string;
  python: string;
  setup?: string;
  modelPath: string;
  fileroot: string;
  experiment: string;
  trial: string;
  datasets: string[];
  /** Other nodes whose GPUs to ask over ssh from the head (multi-node direct runs). */
  nodes?: string[];
  slurm?: { partition?: string; sbatchArgs: string[]; batchScript: string };
  /** Nodes asked at once over ssh (default 8; 1: one after another, the bench's reference). */
  parallel?: number;
}

export function probeArgv(p: ProbeParams): string[] {
  const a: string[] = ['--workdir', p.workdir, '--python', p.python, '--model', p.modelPath, '--fileroot', p.fileroot];
  a.push('--experiment', p.experiment, '--trial', p.trial);
  if (p.setup) a.push('--setup', p.setup);
  for (const d of p.datasets) a.push('--dataset', d);
  for (const n of p.nodes ?? []) a.push('--node', n);
  if (p.parallel !== undefined) a.push('--parallel', String(Math.max(1, Math.floor(p.parallel))));
  if (p.slurm) {
    a.push('--slurm', '1');
    if (p.slurm.partition) a.push('--partition', p.slurm.partition);
    for (const s of p.slurm.sbatchArgs) a.push('--sbatch-arg', s);
  }
  return ['bash', '-c', PROBE_SCRIPT, 'awrl-preflight', ...a];
}

export class ProbeError extends Error {}

export async function runProbe(transport: Transport, p: ProbeParams, signal?: AbortSignal): Promise<ProbeFacts> {
  const r = await transport.exec(probeArgv(p), { stdin: p.slurm?.batchScript ?? '', ...(signal ? { signal } : {}) });
  const out = r.stdout.toString('utf8');
  try {
    return JSON.parse(out) as ProbeFacts;
  } catch {
    const err = r.stderr.toString('utf8').trim().split('\n').slice(-3).join(' / ');
    throw new ProbeError(
      `${transport.target}: the pre-flight probe did not answer (exit ${r.code ?? r.signal}${err ? `: ${err}` : ''}). ` +
        'It needs bash and coreutils on the target; check that `bash` starts there.',
    );
  }
}
