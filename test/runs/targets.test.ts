import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadTargets, resolveTarget, targetsFilePath, TargetsFileError } from '../../src/runs/index.js';
import { parseCli } from '../../src/runs/cli-target.js';

const EXAMPLE = new URL('../../configs/targets.example.yaml', import.meta.url);

function errorOf(text: string): string {
  try {
    loadTargets(text, 'targets.yaml');
  } catch (e) {
    expect(e).toBeInstanceOf(TargetsFileError);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('target profiles', () => {
  it('loads the shipped example', () => {
    const t = loadTargets(readFileSync(EXAMPLE, 'utf8'), 'targets.example.yaml');
    expect(Object.keys(t)).toEqual(['h100', 'box', 'here']);
    expect(t.h100).toMatchObject({
      backend: 'slurm',
      python: 'python3',
      slurm: { partition: 'gpu', gpusPerNode: 8, timeLimit: '2-00:00:00', extraArgs: ['--exclusive'] },
    });
    expect(t.box).toMatchObject({ host: 'gpu-box', backend: 'direct', slurm: { extraArgs: [] } });
  });

  it('reports file:line and the key for schema errors', () => {
    expect(errorOf('targets:\n  a:\n    host: h\n    workdir: /w\n    backend: pbs\n')).toMatch(
      /^targets\.yaml:5: targets\.a\.backend: /,
    );
    expect(errorOf('targets:\n  a:\n    host: h\n    workdir: /w\n    slurm:\n      nodes: two\n')).toMatch(
      /^targets\.yaml:6: targets\.a\.slurm\.nodes: /,
    );
    expect(errorOf('targets:\n  a:\n    host: h\n    wrokdir: /w\n')).toMatch(
      /^targets\.yaml:4: targets\.a: unknown key wrokdir$/,
    );
    expect(errorOf('targets:\n  a:\n    host: h\n    workdir: /w\n    forward_env: ["1BAD"]\n')).toMatch(
      /^targets\.yaml:5: targets\.a\.forward_env\.0: not an environment variable name/,
    );
  });

  it('takes backlog_codec (how a long history crosses a slow link), and names a wrong one by line', () => {
    const t = loadTargets('targets:\n  a:\n    host: h\n    workdir: /w\n    backlog_codec: zstd\n', 'x');
    expect(t.a!.backlogCodec).toBe('zstd');
    expect(resolveTarget({ target: 'a' }, t)).toMatchObject({ backlogCodec: 'zstd' });
    expect(resolveTarget({ target: 'h', workdir: '/w' }, t)).not.toHaveProperty('backlogCodec');
    expect(errorOf('targets:\n  a:\n    host: h\n    workdir: /w\n    backlog_codec: brotli\n')).toMatch(
      /^targets\.yaml:5: targets\.a\.backlog_codec: .*"auto".*"lz4".*"zstd".*"gzip"/,
    );
  });

  it('reports YAML syntax errors and duplicate keys with a line', () => {
    expect(errorOf('targets:\n  a:\n    host: h\n    host: g\n    workdir: /w\n')).toMatch(/^targets\.yaml:4: /);
    expect(errorOf('targets:\n  a: [\n')).toMatch(/^targets\.yaml:\d+: /);
  });

  it('command-line flags override the profile; a non-profile target is a host', () => {
    const profiles = loadTargets(readFileSync(EXAMPLE, 'utf8'), 'x');
    const t = resolveTarget({ target: 'h100', timeLimit: '60', sbatchArgs: ['--qos=high'], gpusPerNode: 0 }, profiles);
    expect(t).toMatchObject({
      host: 'me@login.cluster.example.org',
      slurm: { timeLimit: '60', gpusPerNode: 0, extraArgs: ['--exclusive', '--qos=high'] },
    });
    expect(resolveTarget({ target: 'user@h:2222', workdir: '/w' }, profiles)).toMatchObject({
      name: 'user@h:2222',
      host: 'user@h:2222',
      backend: 'direct',
      python: 'python3',
    });
    expect(resolveTarget({ target: 'user@h' }, profiles)).toMatch(/no workdir/);
    expect(resolveTarget({}, profiles)).toMatch(/missing --target/);
    expect(resolveTarget({ target: 'local', workdir: '/w', backend: 'pbs' }, profiles)).toMatch(/--backend must be/);
  });

  it('finds the profile file under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(targetsFilePath({ XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/x/awrl-tui/targets.yaml');
    expect(targetsFilePath({}, '/home/u')).toBe('/home/u/.config/awrl-tui/targets.yaml');
  });

  it('parses target flags, own options and positional overrides', () => {
    const p = parseCli(
      [
        '--target',
        't',
        '--nodes=2',
        '--sbatch-arg',
        '-x',
        '--sbatch-arg',
        '--y',
        '--follow',
        'a.b=1',
        '--config',
        'c.yaml',
      ],
      {
        values: ['--config'],
        switches: ['--follow'],
      },
    );
    expect(p.flags).toEqual({ target: 't', nodes: 2, sbatchArgs: ['-x', '--y'] });
    expect(p.values).toEqual({ '--config': 'c.yaml' });
    expect([...p.switches]).toEqual(['--follow']);
    expect(p.positional).toEqual(['a.b=1']);
    expect(() => parseCli(['--nodes', 'two'])).toThrow(/whole number/);
    expect(() => parseCli(['--bogus'])).toThrow(/unknown option '--bogus'/);
    expect(() => parseCli(['--target'])).toThrow(/needs a value/);
  });
});

describe('target profile messages', () => {
  it('names a missing required key', () => {
    expect(() => loadTargets('targets:\n  a:\n    host: h\n', 'f.yaml')).toThrow(
      /^f\.yaml:3: targets\.a\.workdir: missing \(required\)$/,
    );
  });
});
