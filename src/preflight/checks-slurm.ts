// Slurm: the partition exists, `sbatch --test-only` accepts the generated script with the run's
// options, and the time limit leaves room for recover checkpoints.
import { cfg, DEFAULT_STEP_SECONDS, type PreflightInput } from './input.js';
import { parseSlurmTime } from './slurm-time.js';
import type { CheckResult } from './types.js';
import { formatDuration } from '../health/time.js';

interface Partition {
  name: string;
  isDefault: boolean;
  up: boolean;
  limitS: number | null;
  limitText: string;
  nodes: string;
  gres: string;
}

export function parseSinfo(out: string): Partition[] {
  const parts: Partition[] = [];
  for (const line of out.split('\n')) {
    const c = line.trim().split('|');
    if (c.length < 3 || c[0] === '') continue;
    const isDefault = c[0].endsWith('*');
    const name = isDefault ? c[0].slice(0, -1) : c[0];
    if (parts.some((p) => p.name === name)) continue; // sinfo prints one line per node state
    parts.push({
      name,
      isDefault,
      up: c[1] === 'up',
      limitS: parseSlurmTime(c[2]),
      limitText: c[2],
      nodes: c[3] ?? '',
      gres: c[4] ?? '',
    });
  }
  return parts;
}

const lastLine = (s: string): string => s.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '';

export function checkSlurm(input: PreflightInput): CheckResult[] {
  const { facts: f, target } = input;
  const s = f.slurm;
  const out: CheckResult[] = [];
  let partition: Partition | undefined;
  if (!s.sinfo.ok) {
    const why = s.sinfo.rc === 127 ? 'sinfo not found' : lastLine(s.sinfo.out) || `sinfo exit ${s.sinfo.rc}`;
    out.push({
      id: 'slurm-partition',
      result: 'error',
      seen: `${f.host}: ${why}`,
      todo: 'Run on a Slurm login node with the Slurm client configured (or add the setup line that makes sinfo work), or use the direct backend.',
    });
  } else {
    const parts = parseSinfo(s.sinfo.out);
    const want = target.slurm.partition;
    partition = want ? parts.find((p) => p.name === want) : parts.find((p) => p.isDefault);
    const list = parts.map((p) => `${p.name}${p.isDefault ? '*' : ''}`).join(', ') || 'none';
    if (!partition) {
      out.push({
        id: 'slurm-partition',
        result: 'error',
        seen: want
          ? `partition '${want}' does not exist (partitions: ${list})`
          : `no default partition (partitions: ${list})`,
        todo: "Set the target's partition to one of those.",
      });
    } else if (!partition.up) {
      out.push({
        id: 'slurm-partition',
        result: 'warning',
        seen: `partition '${partition.name}' is not up`,
        todo: 'Jobs will wait until it is up; pick another partition or ask the admins.',
      });
    } else {
      out.push({
        id: 'slurm-partition',
        result: 'ok',
        seen: `partition '${partition.name}'${want ? '' : ' (default)'} is up, ${partition.nodes} nodes, time limit ${partition.limitText}`,
        todo: '',
      });
    }
  }
  if (s.testOnly.ok) {
    out.push({
      id: 'slurm-submit',
      result: 'ok',
      seen: `sbatch --test-only accepts the job: ${lastLine(s.testOnly.out).replace(/^sbatch: /, '')}`,
      todo: '',
    });
  } else {
    out.push({
      id: 'slurm-submit',
      result: 'error',
      seen: `sbatch --test-only rejects the job: ${lastLine(s.testOnly.out).replace(/^sbatch: (error: )?/, '') || `exit ${s.testOnly.rc}`}`,
      todo: 'Ask for what the partition has: nodes, GPUs per node (gres), CPUs, time limit and account (see sinfo -o "%P %D %G %l").',
    });
  }
  out.push(checkTimeLimit(input, partition));
  return out;
}

function checkTimeLimit(input: PreflightInput, partition: Partition | undefined): CheckResult {
  const asked = input.target.slurm.timeLimit;
  const limitS = asked ? parseSlurmTime(asked) : (partition?.limitS ?? null);
  const stepS = input.typicalStepSeconds ?? DEFAULT_STEP_SECONDS;
  const stepNote = input.typicalStepSeconds
    ? `a step takes ~${formatDuration(stepS)}`
    : `a step takes ~${formatDuration(stepS)} (assumed, as in the reference run)`;
  if (asked && limitS === null) {
    return {
      id: 'slurm-time',
      result: 'error',
      seen: `time limit '${asked}' is not a Slurm time`,
      todo: 'Use minutes, HH:MM:SS or D-HH:MM:SS.',
    };
  }
  if (limitS === null || limitS === Infinity) {
    return { id: 'slurm-time', result: 'ok', seen: 'no time limit', todo: '' };
  }
  if (partition && partition.limitS !== null && limitS > partition.limitS) {
    return {
      id: 'slurm-time',
      result: 'error',
      seen: `time limit ${formatDuration(limitS)} exceeds partition '${partition.name}''s ${partition.limitText}`,
      todo: `Ask for at most ${partition.limitText}.`,
    };
  }
  const freq = Number(cfg(input.resolved, 'recover.freq_secs'));
  if (!(freq > 0)) {
    return {
      id: 'slurm-time',
      result: 'warning',
      seen: `time limit ${formatDuration(limitS)} and recover.freq_secs is unset: no periodic recover checkpoint`,
      todo: 'Set recover.freq_secs (e.g. 1200) so a job killed at its time limit resumes near where it stopped.',
    };
  }
  // The trainer checks freq_secs at the end of a step: the first checkpoint lands after freq + a step.
  if (limitS < freq + stepS) {
    return {
      id: 'slurm-time',
      result: 'error',
      seen: `time limit ${formatDuration(limitS)} < recover.freq_secs ${formatDuration(freq)} + one step; ${stepNote}: the job is killed before its first recover checkpoint`,
      todo: 'Raise the time limit or lower recover.freq_secs, or every attempt starts over.',
    };
  }
  const perAlloc = Math.floor(limitS / (freq + stepS));
  return {
    id: 'slurm-time',
    result: 'ok',
    seen: `time limit ${formatDuration(limitS)}, recover.freq_secs ${formatDuration(freq)}, ${stepNote}: ~${perAlloc} recover checkpoint${perAlloc === 1 ? '' : 's'} per allocation`,
    todo: '',
  };
}
