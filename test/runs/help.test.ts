// --help lists every option the launch, stop and target parsers accept.
import { describe, it, expect } from 'vitest';
import { HELP } from '../../src/cli/help.js';

describe('--help', () => {
  it.each([
    '--skip-preflight',
    '--auto-resume N',
    '--reconnect-timeout S',
    '--accept-new-host-key',
    '--grace S',
    '--yes',
    '-F FILE',
    '--workdir DIR',
    '--python CMD',
    '--setup LINE',
    '--backend direct|slurm',
    '--partition P',
    '--nodes N',
    '--gpus-per-node N',
    '--time LIMIT',
    '--account A',
    '--sbatch-arg ARG',
    '--forward-env NAME',
  ])('lists %s', (flag) => {
    expect(HELP).toContain(flag);
  });

  it('keeps lines within 100 columns', () => {
    for (const line of HELP.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });
});
