// Runs the probe script over a Transport in ONE exec and returns its facts. The only I/O of preflight.
import { randomBytes } from 'node:crypto';
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
  /** No step of the probe (the setup line, python, nvidia-smi, df, Slurm's commands) may run longer
   *  (default 60 s); the whole probe ends by itself after 6 times that. */
  stepLimitS?: number;
  /** Names this probe on the target so a cancel can end it (runProbe sets one). */
  token?: string;
}

export function probeArgv(p: ProbeParams): string[] {
  const a: string[] = ['--workdir', p.workdir, '--python', p.python, '--model', p.modelPath, '--fileroot', p.fileroot];
  a.push('--experiment', p.experiment, '--trial', p.trial);
  if (p.setup) a.push('--setup', p.setup);
  for (const d of p.datasets) a.push('--dataset', d);
  for (const n of p.nodes ?? []) a.push('--node', n);
  if (p.parallel !== undefined) a.push('--parallel', String(Math.max(1, Math.floor(p.parallel))));
  a.push('--step-limit', String(Math.max(1, Math.ceil(p.stepLimitS ?? DEFAULT_STEP_LIMIT_S))));
  if (p.token) a.push('--token', p.token);
  if (p.slurm) {
    a.push('--slurm', '1');
    if (p.slurm.partition) a.push('--partition', p.slurm.partition);
    for (const s of p.slurm.sbatchArgs) a.push('--sbatch-arg', s);
  }
  return ['bash', '-c', PROBE_SCRIPT, 'awrl-preflight', ...a];
}

export class ProbeError extends Error {}

export const DEFAULT_STEP_LIMIT_S = 60;

// $1 the probe's token: the probe's pid file names its shell; it and every process under it end
// (a closed ssh channel does not end a remote command: nothing sends it a signal).
const CANCEL_SCRIPT = String.raw`
f="@{TMPDIR:-/tmp}/awrl-preflight-$1.pid"
[ -f "$f" ] || exit 0
root=$(cat "$f"); rm -f "$f"
case $root in ''|*[!0-9]*) exit 0;; esac
grep -q -s -a -F awrl-preflight "/proc/$root/cmdline" || exit 0
tree() { local p; for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree "$p"; echo "$p"; done; }
kill -TERM $(tree "$root") "$root" 2>/dev/null
exit 0
`.replaceAll('@{', '${');

/** Ends a probe started with `token` on the target, and what it started. */
export function probeCancelArgv(token: string): string[] {
  return ['bash', '-c', CANCEL_SCRIPT, 'awrl-preflight-cancel', token];
}

export async function runProbe(transport: Transport, p: ProbeParams, signal?: AbortSignal): Promise<ProbeFacts> {
  const token = p.token ?? randomBytes(8).toString('hex');
  // Aborted (Ctrl-C): the probe is ended on the target too, not left to run.
  const cancel = () => void transport.exec(probeCancelArgv(token)).catch(() => undefined);
  signal?.addEventListener('abort', cancel, { once: true });
  let r;
  try {
    r = await transport.exec(probeArgv({ ...p, token }), {
      stdin: p.slurm?.batchScript ?? '',
      ...(signal ? { signal } : {}),
    });
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
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
