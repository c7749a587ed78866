// QA as a demanding user: hand-broken configs through `awrl-tui config check` (the built CLI), each
// compared with what the trainer's loader says about the same file (real PyYAML with OmegaConf's
// loader, the file opened as Hydra opens it): the same line and column, or both accept it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { omegaconfAvailable, PYTHON } from '../harness/omegaconf.js';
import { evaluate, mutate, REFERENCE } from './helpers.js';

const BIN = fileURLToPath(new URL('../../bin/awrl-tui.js', import.meta.url));
const MARKS = fileURLToPath(new URL('./pyyaml_marks.py', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'awrl-qa-broken-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const M = (from: string, to: string, text = REFERENCE) => mutate(from, to, text);
const crlf = (t: string) => t.replace(/\n/g, '\r\n');
const filler = (n: number) => Array.from({ length: n }, (_, i) => `# filler line ${i}\n`).join('');
const extras = (n: number) => Array.from({ length: n }, (_, i) => `  extra_${i}: ${i}\n`).join('');

const CASES: [string, string][] = [
  ['tab as indentation', M('  n_nodes: 8', '\tn_nodes: 8')],
  ['tab after a colon', M('  n_nodes: 8', '  n_nodes:\t8')],
  ['tab before a comment', M('seed: 1\n', 'seed: 1\t# the seed\n')],
  ['tab after a quoted value', M('  host_ip: "127.0.0.1"', '  host_ip: "127.0.0.1"\t# ip')],
  ['tab inside a plain value', M('  interaction_mode: "coordinates"', '  interaction_mode: coord\tinates')],
  ['a line holding only a tab', M('seed: 1\n', 'seed: 1\n\t\n')],
  ['tab after a list dash', M('        - Qwen3VLVisionBlock', '        -\tQwen3VLVisionBlock')],
  [
    'tab inside quotes and comments is fine',
    M('seed: 1\n', 'seed: 1 #\tnote\ntrial_name: "a\tb"\n').replace('trial_name: intuition-model\n', ''),
  ],
  ['BOM', `\ufeff${REFERENCE}`],
  ['BOM then an unclosed [ on line 1', '\ufeffa: [1, 2\nb: 3\n'],
  ['BOM then a tab on line 1', '\ufeffa:\t1\n'],
  ['duplicate key at the top', M('seed: 1\n', 'seed: 1\nseed: 2\n')],
  ['duplicate nested key', M('  n_nodes: 8', '  n_nodes: 8\n  n_nodes: 4')],
  ['duplicate key, one quoted', M('seed: 1\n', 'seed: 1\n"seed": 2\n')],
  ['duplicate anchor', M('seed: 1\n', 'seed: &a 1\ntotal_train_steps: &a 2\n')],
  ['undefined alias', M('seed: 1\n', 'seed: *nope\n')],
  [
    'anchor and alias',
    M('  n_samples: 8', '  n_samples: &n 8').replace('    group_size: ${gconfig.n_samples}', '    group_size: *n'),
  ],
  ['CRLF', crlf(REFERENCE)],
  ['CRLF with an unclosed quote', crlf(M('host_ip: "127.0.0.1"', 'host_ip: "127.0.0.1'))],
  ['CRLF with a duplicate key', crlf(M('seed: 1\n', 'seed: 1\nseed: 2\n'))],
  ['CRLF with a tab', crlf(M('seed: 1\n', 'seed:\t1\n'))],
  ['a long file: duplicate key 5000 lines down', M('webgym:\n', `webgym:\n${extras(5000)}  extra_7: 9\n`)],
  ['a long file: unclosed quote at the end', `${REFERENCE}${filler(20000)}bogus: "x\n`],
  ['a long file: tab at the end', `${REFERENCE}${filler(20000)}bogus:\t1\n`],
];

function check(path: string) {
  const base = { ...process.env, WANDB_API_KEY: 'set-for-the-test' };
  let r = spawnSync(process.execPath, [BIN, 'config', 'check', path], { encoding: 'utf8', env: base });
  // dist/ is shared with other builds: a module caught half-written fails to link; run again.
  for (let i = 0; i < 5 && r.status === 70 && /internal error/.test(r.stderr); i++)
    r = spawnSync(process.execPath, [BIN, 'config', 'check', path], { encoding: 'utf8', env: base });
  return r;
}

describe.skipIf(!omegaconfAvailable())(
  'config check on hand-broken files: file:line:col as the trainer says it',
  () => {
    const paths = new Map<string, string>();
    let py: { ok?: true; line?: number; col?: number; problem?: string }[] = [];
    beforeAll(() => {
      CASES.forEach(([, text], i) => {
        const p = join(dir, `case-${i}.yaml`);
        writeFileSync(p, text);
        paths.set(CASES[i][0], p);
      });
      const r = spawnSync(PYTHON, [MARKS], {
        input: JSON.stringify(CASES.map(([name]) => ({ path: paths.get(name) }))),
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
      if (r.status !== 0) throw new Error(r.stderr);
      py = JSON.parse(r.stdout);
    });

    CASES.forEach(([name], i) => {
      it(name, () => {
        const path = paths.get(name)!;
        const r = check(path);
        expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
        const syntax = r.stdout.split('\n').filter((l) => l.includes(': error yaml-syntax '));
        const answer = py[i];
        if (answer.ok) {
          expect(syntax, 'the trainer loads this file').toEqual([]);
          return;
        }
        expect(r.status).toBe(2);
        expect(syntax.length, `the trainer says ${answer.line}:${answer.col} ${answer.problem}`).toBeGreaterThan(0);
        expect(
          syntax[0].startsWith(`${path}:${answer.line}:${answer.col}: error yaml-syntax `),
          `${syntax[0]}\n  trainer: ${answer.line}:${answer.col} ${answer.problem}`,
        ).toBe(true);
      });
    });
  },
);

describe('a duplicate key names its dotted key (the trainer names only the last part)', () => {
  it.each([
    ['  n_nodes: 8', '  n_nodes: 8\n  n_nodes: 4', 'cluster.n_nodes'],
    ['      gpu: 1\n', '      gpu: 1\n      gpu: 2\n', 'actor.scheduling_spec.0.gpu'],
    ['seed: 1\n', 'seed: 1\nseed: 2\n', 'seed'],
  ])('%s', (from, to, key) => {
    const ds = evaluate(mutate(from, to)).diagnostics.filter((d) => d.code === 'yaml-syntax');
    expect(ds.map((d) => d.key)).toEqual([key]);
  });
});

describe('${oc.env:…} is warned once, where it is written (its ${…} copies are the same call)', () => {
  it('cluster.fileroot from the environment: one warning, at cluster.fileroot, not at rollout/saver/… fileroot', () => {
    const ev = evaluate(mutate('  fileroot: /path/to/areal-fileroot', '  fileroot: ${oc.env:AREAL_ROOT}'));
    expect(ev.diagnostics.filter((d) => d.code === 'resolver').map((d) => [d.key, d.line])).toEqual([
      ['cluster.fileroot', 21],
    ]);
  });
  it('an int field from the environment and its copies: one warning at seed', () => {
    const ev = evaluate(mutate('seed: 1\n', 'seed: ${oc.env:SEED}\n'));
    expect(ev.diagnostics.filter((d) => d.code === 'resolver').map((d) => d.key)).toEqual(['seed']);
    expect(ev.hasErrors).toBe(false);
  });
});
