// The effective YAML (`config show` with overrides) is the user's file with the overridden values
// written in: every other line stays byte for byte (blank lines and comments too), and real
// OmegaConf loads it to what OmegaConf gives for the file plus the overrides.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatOverrideValue, parseOverride, toTyped } from '../../src/config/index.js';
import { omegaconfAvailable, runOmegaConf, type RefCase, type RefResult } from '../harness/omegaconf.js';
import { evaluate, REFERENCE } from './helpers.js';

const show = (text: string, overrides: string[]) => evaluate(text, overrides).effectiveYaml();

describe('effective YAML keeps the file around an overridden key', () => {
  it('keeps the blank line before an overridden list item', () => {
    const text = 'specs:\n  - 1\n\n  - 2\nname: x\n';
    expect(show(text, ['specs.1=5'])).toBe('specs:\n  - 1\n\n  - 5 # override 1\nname: x\n');
    // Also when another override changes the file's shape (the Document path).
    expect(show(text, ['specs.1=5', '+extra=1'])).toContain('  - 1\n\n  - 5 # override 1\n');
  });
  it('keeps the blank line between a key and its value, and runs of blank lines', () => {
    expect(show('a:\n\n  1\nb: 2\n', ['a=5'])).toBe('a:\n\n  5 # override 1\nb: 2\n');
    expect(show('a:\n  x: 1\n\n\nb: 2\n\n\n', ['a.x=5'])).toBe('a:\n  x: 5 # override 1\n\n\nb: 2\n\n\n');
  });
  it("keeps the line's own comment, CRLF line ends, a flow mapping's layout", () => {
    expect(show('a: 1  # why\n\nb: 2\n', ['a=5'])).toBe('a: 5  # why # override 1\n\nb: 2\n');
    expect(show('x: 1\r\n\r\ny: 2\r\n', ['x=5'])).toBe('x: 5 # override 1\r\n\r\ny: 2\r\n');
    expect(show('d: {x: 1, y: 2}\n\ne: 3\n', ["d.x='hello, world'"])).toBe("d: {x: 'hello, world', y: 2}\n\ne: 3\n");
  });
  it('replaces an empty value and a block scalar on their own lines only', () => {
    expect(show('x:\n\ny: 2\n', ['x=5'])).toBe('x: 5 # override 1\n\ny: 2\n');
    expect(show('a: |\n  text\n\nb: 2\n', ['a=5'])).toBe('a: 5 # override 1\n\nb: 2\n');
  });
  it('an override of an anchored value does not change its aliases', () => {
    const ev = evaluate('base: &b\n  x: 1\nc: *b\n', ['base.x=5']);
    const back = evaluate(ev.effectiveYaml());
    expect(back.effective).toEqual({ base: { x: 5 }, c: { x: 1 } });
  });
  it('the reference config: overriding a key just before a blank line keeps it', () => {
    const y = show(REFERENCE, [
      'cluster.name_resolve.type=etcd3',
      'scheduler.type=slurm',
      'train_dataset.max_length=100',
    ]);
    expect(y).toContain('  name_resolve:\n    type: etcd3 # override 1\n\n# 48 GPUs');
    expect(y).toContain('scheduler:\n  type: slurm # override 2\n\nrollout:');
    expect(y.split('\n').length).toBe(REFERENCE.split('\n').length);
  });
});

// ---- property: random overrides of the reference config's scalar keys ----------------------
type Leaf = { key: string; value: unknown; line: number };
const base = evaluate(REFERENCE);
const leaves: Leaf[] = [];
const walk = (v: unknown, path: string[]) => {
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(x, [...path, k]);
    return;
  }
  const key = path.join('.');
  const o = base.originOf(key);
  if (o.kind === 'file') leaves.push({ key, value: v, line: o.line });
};
walk(base.effective, []);

const text = fc.string({
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
    ':',
    '#',
    '-',
    'ü',
    '0',
    '.',
    'e',
    '%',
    '&',
    '*',
    '!',
    '|',
    '>',
    '?',
    '@',
  ),
  maxLength: 12,
});
const valueArb = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc
    .double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true })
    .map((x) => (Number.isInteger(x) ? `${x}.0` : String(x))),
  fc.constantFrom('true', 'false', 'null', '', '1e-8', '5e-06', 'yes', 'off', '010', "'???'", 'inf', 'nan'),
  text.map((s) => formatOverrideValue(s)),
);
// Interpolations to keys that hold plain values in the file (and that the same sample does not
// override, so no sample builds a cycle).
const TARGETS = ['cluster.n_nodes', 'gconfig.n_samples', 'trial_name', 'actor.optimizer.lr', 'webgym.master_port'];
const withInterp = fc.oneof(
  { weight: 5, arbitrary: valueArb },
  { weight: 1, arbitrary: fc.constantFrom(...TARGETS).map((t) => `\${${t}}`) },
);
const setArb = fc
  .uniqueArray(fc.tuple(fc.constantFrom(...leaves), withInterp), {
    minLength: 1,
    maxLength: 5,
    selector: ([l]) => l.key,
  })
  .filter((set) => set.every(([, v]) => !TARGETS.some((t) => v === `\${${t}}` && set.some(([l]) => l.key === t))));
const samples = fc
  .sample(setArb, { numRuns: 50, seed: 20261129 })
  .map((set) => ({ set, overrides: set.map(([l, v]) => `${l.key}=${v}`) }));

describe('effective YAML of the reference config under random scalar overrides (property)', () => {
  let ref: RefResult[] = [];
  const cases: RefCase[] = [];
  const outputs: string[] = [];
  beforeAll(() => {
    if (!omegaconfAvailable())
      throw new Error('python3-omegaconf is missing: apt-get install -y python3-omegaconf (for /usr/bin/python3)');
    for (const s of samples) {
      const y = show(REFERENCE, s.overrides);
      outputs.push(y);
      const parsed = s.overrides.map((t) => {
        const p = parseOverride(t);
        return { kind: p.kind, key: p.key, ...(p.value ? { value: toTyped(p.value) } : {}) };
      });
      cases.push({ kind: 'yaml', text: y }, { kind: 'apply', text: REFERENCE, overrides: parsed });
    }
    ref = runOmegaConf(cases);
  });

  it('has scalar keys to draw from, and samples', () => {
    expect(leaves.length).toBeGreaterThan(150);
    expect(samples.length).toBe(50);
    expect(samples.some((s) => s.overrides.some((o) => o.includes('${')))).toBe(true);
    expect(ref.filter((r, i) => i % 2 === 1 && 'ok' in r).length).toBeGreaterThan(samples.length * 0.8);
  });

  it('every line not holding an overridden key is unchanged; blank lines and comments are kept', () => {
    const before = REFERENCE.split('\n');
    samples.forEach((s, i) => {
      const after = outputs[i].split('\n');
      expect(after.length, s.overrides.join(' ')).toBe(before.length);
      const owned = new Map(s.set.map(([l], j) => [l.line - 1, j + 1]));
      before.forEach((line, n) => {
        const idx = owned.get(n);
        if (idx === undefined) expect(after[n], `line ${n + 1} under ${s.overrides.join(' ')}`).toBe(line);
        else {
          // Same key (or list dash) text, then the new value, marked.
          expect(after[n].startsWith(line.slice(0, line.search(/(?<=:|-) /) + 1))).toBe(true);
          expect(after[n].endsWith(` # override ${idx}`)).toBe(true);
        }
      });
      const kept = (ls: string[]) => ls.filter((l) => l.trim() === '' || l.trim().startsWith('#'));
      expect(kept(after)).toEqual(kept(before));
    });
  });

  it('real OmegaConf loads it to the same values as the file merged with the overrides', () => {
    samples.forEach((s, i) => {
      const [mine, theirs] = [ref[2 * i], ref[2 * i + 1]];
      // '???' where others interpolate fails to resolve in both; the effective YAML must agree.
      if ('ok' in theirs) expect(mine, `effective YAML of ${s.overrides.join(' ')}`).toEqual(theirs);
      else
        expect(mine, `effective YAML of ${s.overrides.join(' ')} (OmegaConf: ${JSON.stringify(theirs)})`).toMatchObject(
          { stage: 'resolve', error: theirs.error },
        );
    });
  });
});

describe('a list or mapping where the model path goes', () => {
  it('is a diagnostic, not a crash', () => {
    for (const o of ['actor.path=[1,2]', 'actor.path={a:1}']) {
      const ev = evaluate(REFERENCE, [o]);
      expect(ev.diagnostics.map((d) => d.code)).toContain('type-mismatch');
      expect(() => ev.effectiveYaml()).not.toThrow();
    }
  });
});

// ---- property: overrides that change the file's shape too (adds, deletes, lists) -------------
const deletable = leaves.filter((l) => l.value !== null && !/\.\d+(\.|$)/.test(l.key));
/** A deleted key's line, and its mapping's line when it was the only key (`scheduler: {}`). */
const deletedLines = (key: string): number[] => {
  const parent = key.slice(0, key.lastIndexOf('.'));
  const siblings = parent ? parent.split('.').reduce<any>((o, k) => o?.[k], base.effective) : base.effective;
  const o = base.originOf(parent);
  return [base.originOf(key), ...(parent && Object.keys(siblings ?? {}).length === 1 ? [o] : [])].flatMap((x) =>
    x.kind === 'file' ? [x.line] : [],
  );
};
const shapeArb = fc.oneof(
  fc.constantFrom(...deletable).map((l) => ({ keys: [l.key], lines: deletedLines(l.key), text: `~${l.key}` })),
  fc
    .tuple(
      fc.constantFrom('webgym', 'openai_config', 'actor.scheduling_spec.0.env_vars'),
      fc.integer({ min: 1, max: 9 }),
      valueArb,
    )
    .map(([at, n, v]) => ({ keys: [`${at}.extra_${n}`], lines: [] as number[], text: `+${at}.extra_${n}=${v}` })),
  fc.constantFrom(...leaves).map((l) => ({ keys: [l.key], lines: [l.line], text: `${l.key}=[1,'two']` })),
  fc
    .tuple(fc.constantFrom(...leaves), valueArb)
    .map(([l, v]) => ({ keys: [l.key], lines: [l.line], text: `${l.key}=${v}` })),
);
// Distinct keys, and no key under another one (`~a` then `a.b=…` is a Hydra error, not our subject).
const mixedArb = fc
  .uniqueArray(shapeArb, { minLength: 2, maxLength: 5, selector: (o) => o.keys[0] })
  .filter((set) => set.every((a) => set.every((b) => a === b || !b.keys[0].startsWith(`${a.keys[0]}.`))));
const mixed = fc.sample(mixedArb, { numRuns: 25, seed: 1130 });

describe('effective YAML under overrides that change its shape (property)', () => {
  let ref: RefResult[] = [];
  const outputs: string[] = [];
  beforeAll(() => {
    const cases: RefCase[] = [];
    for (const set of mixed) {
      const overrides = set.map((o) => o.text);
      const y = show(REFERENCE, overrides);
      outputs.push(y);
      const parsed = overrides.map((t) => {
        const p = parseOverride(t);
        return { kind: p.kind, key: p.key, ...(p.value ? { value: toTyped(p.value) } : {}) };
      });
      cases.push({ kind: 'yaml', text: y }, { kind: 'apply', text: REFERENCE, overrides: parsed });
    }
    ref = runOmegaConf(cases);
  });

  it('samples resolve in OmegaConf mostly (so the comparison is about values)', () => {
    expect(ref.filter((r, i) => i % 2 === 1 && 'ok' in r).length).toBeGreaterThan(mixed.length / 2);
  });
  it('keeps every other line, in order (blank lines and comments included)', () => {
    const before = REFERENCE.split('\n');
    mixed.forEach((set, i) => {
      const touched = new Set(set.flatMap((o) => o.lines.map((l) => l - 1)));
      const kept = before.filter((_, n) => !touched.has(n));
      const after = outputs[i].split('\n');
      let j = 0;
      for (const line of after) if (j < kept.length && line === kept[j]) j++;
      expect(kept.slice(j, j + 1), set.map((o) => o.text).join(' ')).toEqual([]);
    });
  });

  it('real OmegaConf loads it to the same values as the file merged with the overrides', () => {
    mixed.forEach((set, i) => {
      const what = set.map((o) => o.text).join(' ');
      const [mine, theirs] = [ref[2 * i], ref[2 * i + 1]];
      // Deleting a key others interpolate fails to resolve in both; the effective YAML must agree.
      if ('ok' in theirs) expect(mine, `effective YAML of ${what}`).toEqual(theirs);
      else
        expect(mine, `effective YAML of ${what} (OmegaConf: ${JSON.stringify(theirs)})`).toMatchObject({
          stage: 'resolve',
          error: theirs.error,
        });
    });
  });
});
