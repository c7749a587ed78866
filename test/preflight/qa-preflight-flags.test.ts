// QA: `preflight` takes the same target words as `--launch` (a script pre-flights, then launches with
// the same flags): --cpus-per-task, --forward-env, --gpus-per-node 0 (a CPU-only partition), and
// --accept-new-host-key, which its own unknown-host error tells the user to pass.
import { describe, it, expect } from 'vitest';
import { parseArgs } from '../../src/cli/preflight-command.js';

const base = ['--target', 'h', '--config', 'c.yaml'];

describe('preflight takes the target flags --launch takes', () => {
  it('--cpus-per-task, --forward-env (repeatable), --gpus-per-node 0, --accept-new-host-key', () => {
    const p = parseArgs([
      ...base,
      '--cpus-per-task',
      '4',
      '--forward-env',
      'A',
      '--forward-env=B',
      '--gpus-per-node',
      '0',
      '--accept-new-host-key',
      'seed=2',
    ]);
    expect(p.flags).toMatchObject({ target: 'h', cpusPerTask: 4, forwardEnv: ['A', 'B'], gpusPerNode: 0 });
    expect(p.acceptNewHostKey).toBe(true);
    expect(p.overrides).toEqual(['seed=2']);
  });
  it('still refuses what is not a count', () => {
    expect(() => parseArgs([...base, '--cpus-per-task', '0'])).toThrow(
      /--cpus-per-task needs a positive integer, not '0'/,
    );
    expect(() => parseArgs([...base, '--gpus-per-node', '-1'])).toThrow(/--gpus-per-node needs a positive integer/);
  });
});
