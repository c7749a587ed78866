// nan/inf where the trainer computes with the number (rules/finite.ts): an error naming the key and
// where it was set (the file's line, or the override), with what the trainer would do with it.
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/config/index.js';
import { evaluate, mutate, only, posOf, REFERENCE } from './helpers.js';

const findings = (overrides: string[], text = REFERENCE) =>
  evaluate(text, overrides).diagnostics.filter((d) => d.code === 'non-finite-number');

describe('non-finite numbers the trainer would compute with', () => {
  it.each([
    ['actor.optimizer.lr=nan', 'actor.optimizer.lr=nan', /Adam refuses it .*only once the model is loaded/],
    ['actor.optimizer.lr=inf', 'actor.optimizer.lr=inf', /turns the weights inf\/nan/],
    ['actor.optimizer.eps=inf', 'actor.optimizer.eps=inf', /never learns/],
    ['actor.optimizer.beta2=-inf', 'actor.optimizer.beta2=-inf', /betas must be in \[0, 1\)/],
    ['actor.eps_clip=nan', 'actor.eps_clip=nan', /PPO loss is nan/],
    ['actor.kl_ctl=inf', 'actor.kl_ctl=inf', /inf\/nan from the first step/],
    ['gconfig.temperature=nan', 'gconfig.temperature=nan', /nan probabilities/],
    ['gconfig.top_p=inf', 'gconfig.top_p=inf', /refuses every request/],
  ])('%s: an error at the override, naming the key', (override, said, why) => {
    const [d, ...more] = findings([override]);
    expect(more).toEqual([]);
    expect(d.severity).toBe('error');
    expect(d.key).toBe(override.split('=')[0]);
    expect(d.override).toEqual({ index: 1, text: override });
    expect(d.message).toContain(`${said} is not a finite number`);
    expect(d.message).toMatch(why);
    expect(formatDiagnostic(d, 'cfg.yaml')).toMatch(/^override 1 'actor|^override 1 'gconfig/);
  });

  it('in the file: the error names the line of the key', () => {
    const text = mutate('    lr: 5.0e-6', '    lr: .nan');
    const d = only(evaluate(text), 'non-finite-number');
    expect(d).toMatchObject({ severity: 'error', key: 'actor.optimizer.lr', line: posOf(text, 'lr: .nan').line });
    expect(formatDiagnostic(d, 'cfg.yaml')).toMatch(
      new RegExp(`^cfg\\.yaml:${d.line}:\\d+: error non-finite-number actor\\.optimizer\\.lr=nan is not a finite`),
    );
  });

  it('inf where it means "no limit" is accepted; nan there is not', () => {
    expect(findings(['actor.optimizer.gradient_clipping=inf', 'actor.eps_clip=inf', '++actor.c_clip=inf'])).toEqual([]);
    expect(findings(['actor.optimizer.gradient_clipping=nan']).map((d) => d.severity)).toEqual(['error']);
  });

  it('nan in any other float field is a warning naming it; finite values say nothing', () => {
    expect(findings([])).toEqual([]);
    const ds = findings(['sglang.mem_fraction_static=nan']);
    expect(ds.map((d) => [d.severity, d.key])).toEqual([['warning', 'sglang.mem_fraction_static']]);
    expect(ds[0].message).toContain('sglang.mem_fraction_static=nan');
  });
});
