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
    const y = show(REFERENCE, ['cluster.name_resolve.type=etcd3', 'scheduler.type=slurm', 'train_dataset.max_length=100']);
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

const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', "'", '"', '\\', ',', '[', ']', '{', '}', ':', '#', '-', 'ü', '0', '.', 'e', '%', '&', '*', '!', '|', '>', '?', '@'), maxLength: 12 });
const valueArb = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((x) => (Number.isInteger(x) ? `${x}.0` : String(x))),
  fc.constantFrom('true', 'false', 'null', '', '1e-8', '5e-06', 'yes', 'off', '010', "'???'", 'inf', 'nan'),
  text.map((s) => formatOverrideValue(s)),
);
const setArb = fc.uniqueArray(fc.tuple(fc.constantFrom(...leaves), valueArb), { minLength: 1, maxLength: 5, selector: ([l]) => l.key });
const samples = fc.sample(setArb, { numRuns: 60, seed: 20261129 }).map((set) => ({ set, overrides: set.map(([l, v]) => `${l.key}=${v}`) }));

describe('effective YAML of the reference config under random scalar overrides (property)', () => {
  let ref: RefResult[] = [];
  const cases: RefCase[] = [];
  const outputs: string[] = [];
  beforeAll(() => {
    if (!omegaconfAvailable()) throw new Error('python3-omegaconf is missing: apt-get install -y python3-omegaconf (for /usr/bin/python3)');
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
    expect(samples.length).toBe(60);
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
      const mine = ref[2 * i];
      const theirs = ref[2 * i + 1];
      expect(theirs, `OmegaConf applies ${s.overrides.join(' ')}`).toHaveProperty('ok');
      expect(mine, `effective YAML of ${s.overrides.join(' ')}`).toEqual(theirs);
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
