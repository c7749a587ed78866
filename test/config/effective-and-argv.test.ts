// What the user sees and edits is what the trainer runs: the effective YAML (comments kept) and
// the resolved YAML load back to the same config, and the launch argv's overrides, read back by
// the Hydra grammar, give the same config as the user's overrides.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatOverrideValue, toTyped } from '../../src/config/index.js';
import { evaluate, REFERENCE } from './helpers.js';

const OVERRIDES = [
  'seed=42',
  "allocation_mode='sglang[rollout]:d40+fsdp[actor]:d24'",
  'rollout.consumer_batch_size=144',
  '++train_dataset.batch_size=144',
  'actor.optimizer.lr=1e-5',
  'actor.scheduling_spec.0.env_vars.SGLANG_VLM_CACHE_SIZE_MB=16384',
  '++actor.fsdp.offload_params=true',
  '~openai_config',
  '+webgym.new_key={a:1,b:[x,y]}',
  'trial_name="trial two"',
  'stats_logger.wandb.mode=disabled',
  'gconfig.top_p=1',
];

describe('effective YAML', () => {
  it('keeps every comment and marks the changed keys', () => {
    const ev = evaluate(REFERENCE, OVERRIDES);
    expect(ev.hasErrors).toBe(false);
    const y = ev.effectiveYaml();
    // Every comment stays, except the heading of the section ~openai_config removed.
    for (const line of REFERENCE.split('\n').filter(
      (l) => l.trim().startsWith('#') && !l.includes('Evaluator: Gemini'),
    ))
      expect(y).toContain(line.trim());
    expect(y).toMatch(/^seed: 42 # override 1$/m);
    expect(y).toMatch(/^allocation_mode: sglang\[rollout\]:d40\+fsdp\[actor\]:d24 # override 2$/m);
    expect(y).not.toContain('openai_config');
    expect(y).toContain('offload_params: true');
  });
  it('reads back (with no overrides) to the same typed config', () => {
    const ev = evaluate(REFERENCE, OVERRIDES);
    const back = evaluate(ev.effectiveYaml());
    expect(back.diagnostics).toEqual(ev.diagnostics.filter((d) => !d.override));
    expect(toTyped(back.resolvedTree!)).toEqual(toTyped(ev.resolvedTree!));
  });
  it('resolved YAML has no interpolations and reads back to the same typed config', () => {
    const ev = evaluate(REFERENCE, OVERRIDES);
    const y = ev.effectiveYaml({ resolved: true });
    expect(y).not.toContain('${');
    expect(y).toContain('random_seed: 42');
    expect(y).toContain('lr: 1e-05');
    expect(y).toContain('top_p: 1.0');
    const back = evaluate(y);
    expect(toTyped(back.resolvedTree!)).toEqual(toTyped(ev.resolvedTree!));
  });
  it('originOf tells file, override and default apart', () => {
    const ev = evaluate(REFERENCE, ['seed=42']);
    expect(ev.originOf('seed')).toEqual({ kind: 'override', index: 1 });
    expect(ev.originOf('trial_name')).toEqual({ kind: 'file', line: 12, col: 1 });
    expect(ev.originOf('actor.optimizer.lr')).toMatchObject({ kind: 'file', col: 5 });
    expect(ev.originOf('actor.optimizer.offload')).toEqual({ kind: 'default' });
  });
});

describe('launch argv', () => {
  it('is python3 webgym/train.py --config PATH then ++key=value for each override', () => {
    const ev = evaluate(REFERENCE, [
      'seed=42',
      "allocation_mode='sglang[rollout]:d40+fsdp[actor]:d24'",
      '~openai_config',
      'actor.optimizer.lr=5e-6',
      'gconfig.top_p=1.0',
    ]);
    expect(ev.launchArgv({ remoteConfigPath: '/remote/run/config.yaml' })).toEqual([
      'python3',
      'webgym/train.py',
      '--config',
      '/remote/run/config.yaml',
      '++seed=42',
      "++allocation_mode='sglang[rollout]:d40+fsdp[actor]:d24'",
      '~openai_config',
      '++actor.optimizer.lr=5e-6',
      '++gconfig.top_p=1.0',
    ]);
    expect(ev.launchArgv({ remoteConfigPath: 'c.yaml', python: '/venv/bin/python' })[0]).toBe('/venv/bin/python');
  });
  it('reads back to the same typed config as the user overrides', () => {
    const ev = evaluate(REFERENCE, OVERRIDES);
    const argv = ev.launchArgv({ remoteConfigPath: 'c.yaml' });
    const back = evaluate(REFERENCE, argv.slice(4));
    expect(back.hasErrors).toBe(false);
    expect(toTyped(back.resolvedTree!)).toEqual(toTyped(ev.resolvedTree!));
  });
  it('carries any string value byte for byte (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            'Z',
            ' ',
            "'",
            '"',
            '\\',
            ',',
            '[',
            ']',
            '{',
            '}',
            '=',
            ':',
            '#',
            '%',
            'ü',
            '0',
            '.',
            '$',
          ),
        }),
        (s) => {
          const ev = evaluate(REFERENCE, [`trial_name=${formatOverrideValue(s)}`]);
          const argv = ev.launchArgv({ remoteConfigPath: 'c.yaml' });
          const back = evaluate(REFERENCE, argv.slice(4));
          if (!s.includes('${')) expect(back.resolved!.trial_name).toBe(s);
          expect(back.resolved!.trial_name).toBe(ev.resolved!.trial_name);
        },
      ),
      { numRuns: 50, seed: 5 },
    );
  });
});

describe('effective YAML with arbitrary strings', () => {
  it('a string set by an override reads back identically from the effective YAML (property)', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            'a',
            ' ',
            ':',
            '#',
            '-',
            '?',
            '[',
            ']',
            '{',
            '}',
            ',',
            "'",
            '"',
            '&',
            '*',
            '!',
            '|',
            '>',
            '%',
            '@',
            '`',
            '1',
            '.',
            'e',
            'y',
            '\\',
          ),
        }),
        (s) => {
          const ev = evaluate(REFERENCE, [`trial_name=${formatOverrideValue(s)}`]);
          if (s.includes('${')) return;
          const back = evaluate(ev.effectiveYaml());
          expect(back.resolved!.trial_name).toBe(s);
          expect(evaluate(ev.effectiveYaml({ resolved: true })).resolved!.trial_name).toBe(s);
        },
      ),
      { numRuns: 60, seed: 9 },
    );
  });
});
