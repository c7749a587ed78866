// The mistakes a user makes typing a value, made at random (seeded) in the reference config, each
// asked of real PyYAML (the trainer's loader): the first yaml-syntax error sits at PyYAML's
// problem_mark, or both accept the file. Kinds: an unclosed quote or bracket at a value's start, a
// tab in a value, a ': ' inside a value, a key without its ':', a stray quote at a line's end.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { omegaconfAvailable, PYTHON } from '../harness/omegaconf.js';
import { evaluate, REFERENCE } from './helpers.js';

function mutations(seed: number, n: number): { text: string; what: string }[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const lines = REFERENCE.split('\n');
  const valueLines = lines.flatMap((l, i) => (/^\s*[\w.-]+: \S/.test(l) ? [i] : []));
  const out: { text: string; what: string }[] = [];
  for (let k = 0; k < n; k++) {
    const li = valueLines[Math.floor(rnd() * valueLines.length)];
    const line = lines[li];
    const v = line.indexOf(': ') + 2;
    const pos = v + Math.floor(rnd() * (line.length - v + 1));
    const kind = Math.floor(rnd() * 6);
    const pick = <T>(a: T, b: T) => (rnd() < 0.5 ? a : b);
    const changed = [
      () => line.slice(0, v) + pick('"', "'") + line.slice(v),
      () => line.slice(0, v) + pick('[', '{') + line.slice(v),
      () => `${line.slice(0, pos)}\t${line.slice(pos)}`,
      () => `${line.slice(0, pos)}: ${line.slice(pos)}`,
      () => line.replace(': ', ' '),
      () => line + pick(' "', " '"),
    ][kind]();
    const copy = [...lines];
    copy[li] = changed;
    out.push({ text: copy.join('\n'), what: `line ${li + 1}: ${JSON.stringify(changed)}` });
  }
  return out;
}

describe.skipIf(!omegaconfAvailable())('typing mistakes in the reference config: yaml-syntax where PyYAML says', () => {
  it('500 seeded mutations agree with real PyYAML', () => {
    const cases = [...mutations(3, 250), ...mutations(5, 250)];
    const r = spawnSync(PYTHON, [fileURLToPath(new URL('./pyyaml_marks.py', import.meta.url))], {
      input: JSON.stringify(cases.map((c) => c.text)),
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    expect(r.status, r.stderr).toBe(0);
    const py = JSON.parse(r.stdout) as { ok?: true; other?: string; line?: number; col?: number; problem?: string }[];
    const disagree: string[] = [];
    cases.forEach((c, i) => {
      const d = evaluate(c.text).diagnostics.find((x) => x.code === 'yaml-syntax');
      const p = py[i];
      const theirs = p.ok || p.other ? 'loads' : `${p.line}:${p.col} ${p.problem}`;
      const ours = d ? `${d.line}:${d.col}` : 'loads';
      if ((theirs === 'loads') !== (ours === 'loads') || (d && !theirs.startsWith(`${ours} `)))
        disagree.push(`${c.what}\n  cockpit ${ours} ${d?.message ?? ''}\n  PyYAML  ${theirs}`);
    });
    expect(disagree).toEqual([]);
  }, 60_000);
});
