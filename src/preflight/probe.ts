// Runs the probe script over a Transport in ONE exec and returns its facts. The only I/O of preflight.
import { randomBytes } from 'node:crypto';
import type { Transport } from '../remote/transport.js';
import { DEFAULT_SETUP_LIMIT_S } from '../runs/index.js';
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
   *  (default 60 s: runs/setup-limit.ts): it is stopped and named. */
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
  a.push('--step-limit', String(Math.max(1, Math.ceil(p.stepLimitS ?? DEFAULT_SETUP_LIMIT_S))));
  if (p.token) a.push('--token', p.token);
  if (p.slurm) {
    a.push('--slurm', '1');
    if (p.slurm.partition) a.push('--partition', p.slurm.partition);
    for (const s of p.slurm.sbatchArgs) a.push('--sbatch-arg', s);
  }
  return ['bash', '-c', PROBE_SCRIPT, 'awrl-preflight', ...a];
}

export class ProbeError extends Error {}

// The probe's session on the target (sshd starts each command as a session leader), every process
// in it ended: the probe, a step's `timeout` (its own process group) and what it started (a setup
// line's children orphaned meanwhile too). Found by its token ($1) in its command line; our own
// session (this script, its grep) is not it. TERM, then KILL what is left a second later.
const CANCEL_SCRIPT = String.raw`
tok=$1
sid_of() { local s; { read -r s < "/proc/$1/stat"; } 2>/dev/null || return 1; s=@{s##*) }; set -- $s; echo "$4"; }
mine=$(sid_of $$)
sid=
for f in $(grep -l -s -a -F -e "$tok" /proc/[0-9]*/cmdline); do
  p=@{f#/proc/}; p=@{p%/cmdline}
  s=$(sid_of "$p") || continue
  [ "$s" = "$mine" ] && continue
  grep -q -s -a -F -e awrl-preflight "/proc/$s/cmdline" && grep -q -s -a -F -e "$tok" "/proc/$s/cmdline" && sid=$s && break
done
[ -n "$sid" ] || exit 0
members() { local d; for d in /proc/[0-9]*; do [ "$(sid_of "@{d#/proc/}")" = "$sid" ] && echo "@{d#/proc/}"; done; }
pids=$(members)
[ -n "$pids" ] && kill -TERM $pids 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do pids=$(members); [ -z "$pids" ] && exit 0; sleep 0.1; done
kill -KILL $pids 2>/dev/null
exit 0
`.replaceAll('@{', '${');

/** Ends the probe started with `token` on the target, and everything it started. */
export function probeCancelArgv(token: string): string[] {
  return ['bash', '-c', CANCEL_SCRIPT, 'awrl-preflight-cancel', token];
}

/** `onCancel`: told of the cancel's exec when `signal` aborts, so that a caller about to exit can
 *  wait for it (the probe would run on otherwise). */
export async function runProbe(
  transport: Transport,
  p: ProbeParams,
  signal?: AbortSignal,
  onCancel?: (done: Promise<unknown>) => void,
): Promise<ProbeFacts> {
  const token = p.token ?? randomBytes(8).toString('hex');
  // Aborted (Ctrl-C): the probe is ended on the target too (a closed channel does not end a
  // remote command), and the caller waits for that before it closes the connection.
  let cancelled: Promise<unknown> | undefined;
  const cancel = () => {
    cancelled = transport.exec(probeCancelArgv(token)).catch(() => undefined);
    onCancel?.(cancelled);
  };
  if (signal?.aborted) throw new ProbeError(`${transport.target}: the pre-flight probe was cancelled`);
  signal?.addEventListener('abort', cancel, { once: true });
  let r;
  try {
    r = await transport.exec(probeArgv({ ...p, token }), {
      stdin: p.slurm?.batchScript ?? '',
      ...(signal ? { signal } : {}),
    });
  } finally {
    signal?.removeEventListener('abort', cancel);
    if (cancelled) await Promise.race([cancelled, new Promise((res) => setTimeout(res, 10_000).unref())]);
  }
  if (cancelled) throw new ProbeError(`${transport.target}: the pre-flight probe was cancelled (and ended there)`);
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
