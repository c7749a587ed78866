// Limits on hostile input (documented in README.md): past them the work and memory of reading a
// config would grow without bound (an alias bomb doubles per line), so it is refused, saying why.
import type { YamlProblem } from './yaml-load.js';

/** A trainer config is a few KB and ~1,000 values. */
export const MAX_CONFIG_CHARS = 4 << 20;
export const MAX_CONFIG_VALUES = 100_000;

const n = (x: number) => x.toLocaleString('en');

export const TOO_BIG = (what: string, trainer: string) =>
  `${what}: refused, the cockpit reads at most ${n(MAX_CONFIG_CHARS)} characters and ${n(MAX_CONFIG_VALUES)} values ` +
  `(a trainer config is a few KB). The trainer's loader would blow up on it too: ${trainer}`;
// Measured (test machine, python3-omegaconf): a 4.7 MB list took 97 s to load and create; the 1 KB
// alias bomb loads in 10 ms in PyYAML (aliases are shared there) and OmegaConf.create ran on past 20 s.
export const SLOW = 'pure-Python PyYAML and OmegaConf take about 20 s per MB of such a file (97 s for a 4.7 MB list)';
export const COPIES =
  'PyYAML shares an alias, but OmegaConf copies the anchored value at every alias, so each level multiplies the work';

/** The offset where the count of line breaks and commas passes `max`, or -1. */
function separatorsPast(text: string, max: number): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c === 10 || c === 44) && ++n > max) return i;
  }
  return -1;
}

/** Refused before it is parsed: too many characters, or more lines and commas than values allowed. */
export function inputTooBig(text: string): YamlProblem | null {
  if (text.length > MAX_CONFIG_CHARS)
    return { message: TOO_BIG(`the file has ${n(text.length)} characters`, SLOW), line: 1, col: 1 };
  // Every value but an alias's copies needs a line or a ',' of its own: past the budget, refuse
  // before the parsers build a token per value.
  const at = separatorsPast(text, MAX_CONFIG_VALUES);
  if (at < 0) return null;
  const line = text.slice(0, at).split('\n').length;
  const what = `the file has more than ${n(MAX_CONFIG_VALUES)} lines and flow items (the limit is passed at line ${line})`;
  return { message: TOO_BIG(what, SLOW), line, col: 1 };
}
