// Hydra's own handling in train.py's compose (#17): hydra.* overrides and a `hydra:` node are
// Hydra's config (accepted, dropped from the trainer's config), `defaults: [_self_]` is consumed,
// a `# @package actor` header moves the whole file under actor. Hydra is not installed here: these
// follow its source (ConfigSource._get_header_dict, the defaults list, compose's
// return_hydra_config=False), and the merge they feed is checked against OmegaConf elsewhere.
import { describe, expect, it } from 'vitest';
import { packageHeader } from '../../src/config/hydra-compose.js';
import { evaluate, only, REFERENCE } from './helpers.js';

const errors = (text: string, overrides: string[] = []) =>
  evaluate(text, overrides).diagnostics.filter((d) => d.severity === 'error');

describe('hydra.* overrides', () => {
  it('hydra.job.name=x, hydra.verbose=true, +hydra.foo=1: accepted, not in the config, passed on to the trainer', () => {
    const ovs = ['hydra.job.name=x', 'hydra.verbose=true', '+hydra.foo=1'];
    const ev = evaluate(REFERENCE, ovs);
    expect(ev.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(ev.resolved && 'hydra' in ev.resolved).toBe(false);
    expect(ev.launchArgv({ remoteConfigPath: 'c.yaml' })).toEqual(
      expect.arrayContaining(['++hydra.job.name=x', '++hydra.verbose=true', '++hydra.foo=1']),
    );
  });
  it("a key merely starting with hydra is the trainer's (and unknown)", () => {
    expect(only(evaluate(REFERENCE, ['+hydrax=1']), 'unknown-key').key).toBe('hydrax');
  });
});

describe('the hydra: node and the defaults list in the file', () => {
  const withHydra = `defaults: [_self_]\nhydra:\n  job:\n    name: x\n  verbose: true\n${REFERENCE}`;
  it('are consumed by Hydra: no unknown-key, not in the resolved config', () => {
    const ev = evaluate(withHydra);
    expect(ev.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(Object.keys(ev.resolved!)).not.toContain('hydra');
    expect(Object.keys(ev.resolved!)).not.toContain('defaults');
    expect(ev.effectiveYaml({ resolved: true })).not.toMatch(/^(hydra|defaults):/m);
  });
  it('the effective YAML is still the file, comments and all', () => {
    const ev = evaluate(withHydra, ['seed=3']);
    const eff = ev.effectiveYaml();
    expect(eff.startsWith('defaults: [_self_]\nhydra:\n')).toBe(true);
    expect(eff).toContain('# WebGym GRPO Instruct');
    expect(eff).toMatch(/^seed: 3/m);
  });
  it('a defaults entry naming another config is refused: the launch uploads this file only', () => {
    const d = only(evaluate(`defaults:\n  - _self_\n  - model: qwen\n${REFERENCE}`), 'hydra-defaults');
    expect([d.key, d.line]).toEqual(['defaults.1', 3]);
    expect(d.message).toMatch(/another config file/);
  });
  it("Hydra's own groups in the defaults list come with Hydra: accepted", () => {
    const text = `defaults:\n  - _self_\n  - override hydra/job_logging: disabled\n  - override hydra/hydra_logging: disabled\n${REFERENCE}`;
    expect(errors(text)).toEqual([]);
  });
  it('defaults that is not a list is refused', () => {
    expect(only(evaluate(`defaults: _self_\n${REFERENCE}`), 'hydra-defaults').message).toMatch(/must be a list/);
  });
});

describe('# @package header', () => {
  it('# @package actor moves the whole file under actor: the trainer then fails on seed', () => {
    const ev = evaluate(`# @package actor\n${REFERENCE}`);
    const unknown = ev.diagnostics.filter((d) => d.code === 'unknown-key');
    expect(unknown[0].message).toMatch(/^Key 'seed' not in 'PPOActorConfig'/);
    expect(unknown[0].line).toBe(REFERENCE.split('\n').findIndex((l) => l.startsWith('seed:')) + 2);
    expect(only(ev, 'hydra-package').severity).toBe('warning');
  });
  it('a moved file that fits is accepted where it lands', () => {
    const text = '# @package actor\npath: /models/x\n';
    const ev2 = evaluate(text);
    expect(ev2.resolved?.actor.path).toBe('/models/x');
    expect(ev2.effectiveYaml()).toMatch(/^actor:\n {2}path: \/models\/x\n/);
  });
  it('_global_ keeps the keys at the top; a non-header line first ends the header', () => {
    expect(errors(`# @package _global_\n${REFERENCE}`).filter((d) => d.code === 'unknown-key')).toEqual([]);
    expect(packageHeader('# a comment\n# @package actor\nseed: 1\n')).toEqual({ package: null, line: 0 });
    expect(packageHeader('\n\n# @package actor\nseed: 1\n')).toEqual({ package: 'actor', line: 3 });
  });
  it('a malformed header is refused as Hydra refuses it', () => {
    expect(only(evaluate(`# @package\n${REFERENCE}`), 'hydra-header').message).toMatch(
      /Expected header format: KEY VALUE/,
    );
    expect(only(evaluate(`# @package a b\n${REFERENCE}`), 'hydra-header').message).toMatch(/Too many components/);
  });
});

describe("Hydra's rules on its own config (HydraConf)", () => {
  it.each([
    ['hydra.foo=1', 'override-missing-key', "Could not override 'hydra.foo'"],
    ['hydra.job.nme=x', 'override-missing-key', "Could not override 'hydra.job.nme'"],
    ['+hydra.verbose=true', 'override-exists', "An item is already at 'hydra.verbose'"],
  ])('%s is refused as Hydra refuses it', (o, code, message) => {
    const d = only(evaluate(REFERENCE, [o]), code);
    expect(d.message).toContain(message);
  });
  it("its free parts (logging, env_set) take any key; the file's hydra: node adds keys", () => {
    expect(
      errors(REFERENCE, ['hydra.job_logging.root.level=DEBUG', '+hydra.job.env_set.X=1', 'hydra.run.dir=/tmp/x']),
    ).toEqual([]);
    expect(errors(`hydra:\n  foo: 0\n${REFERENCE}`, ['hydra.foo=1'])).toEqual([]);
  });
});
