// Pure: the probe's facts + the config + the target → check results, in the order a user fixes them.
import { checkCheckout, checkDatasets, checkModel, checkPython, checkSetup } from './checks-host.js';
import { checkGpuMemory, checkGpus } from './checks-gpu.js';
import { checkFileroot, checkResume } from './checks-disk.js';
import { checkSlurm } from './checks-slurm.js';
import type { PreflightInput } from './input.js';
import type { CheckResult } from './types.js';

export function evaluatePreflight(input: PreflightInput): CheckResult[] {
  const checks: CheckResult[] = [
    checkCheckout(input),
    checkSetup(input),
    checkPython(input),
    checkModel(input),
    ...checkDatasets(input),
  ];
  checks.push(checkGpus(input), checkGpuMemory(input), checkFileroot(input), checkResume(input));
  if (input.target.backend === 'slurm') checks.push(...checkSlurm(input));
  checks.push(checkSecrets(input));
  return checks;
}

/** Names only: a value is never read, printed or sent. `secrets` is runs/forwarding.ts's decision. */
export function checkSecrets({ secrets: all, envNames }: PreflightInput): CheckResult {
  if (all.length === 0) return { id: 'secrets', result: 'ok', seen: 'this config needs no secrets', todo: '' };
  const secrets = all.filter((s) => !s.dropped);
  const dropped = all.filter((s) => s.dropped);
  const missingRequired = secrets.filter((s) => s.required && !envNames.has(s.name));
  const missingOptional = secrets.filter((s) => !s.required && !envNames.has(s.name));
  const present = secrets.filter((s) => envNames.has(s.name)).map((s) => s.name);
  const seen = [
    present.length > 0 ? `set locally: ${present.join(', ')}` : '',
    ...missingRequired.map((s) => `${s.name} is not set (${s.why})`),
    ...missingOptional.map((s) => `${s.name} is not set (optional: ${s.why})`),
    ...dropped.map((s) => `${s.name} NOT forwarded: --no-forward-env (${s.why})`),
  ]
    .filter(Boolean)
    .join('; ');
  if (missingRequired.length > 0) {
    return {
      id: 'secrets',
      result: 'error',
      seen,
      todo: `Export ${missingRequired.map((s) => s.name).join(', ')} in this shell before launching; awrl-tui sends it to the trainer over the SSH channel's stdin, never on a command line.`,
    };
  }
  if (missingOptional.length > 0 || dropped.length > 0) {
    const todo = [
      missingOptional.length > 0 ? `Export ${missingOptional.map((s) => s.name).join(', ')} if the run needs it.` : '',
      dropped.length > 0
        ? `The trainer will not see ${dropped.map((s) => s.name).join(', ')}: drop --no-forward-env unless that is meant.`
        : '',
    ]
      .filter(Boolean)
      .join(' ');
    return { id: 'secrets', result: 'warning', seen, todo };
  }
  return { id: 'secrets', result: 'ok', seen, todo: '' };
}

export const hasErrors = (checks: readonly CheckResult[]): boolean => checks.some((c) => c.result === 'error');
