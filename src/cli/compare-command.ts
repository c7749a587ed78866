// `awrl-tui compare A B [--target T] [--json] [--md] [--smooth W] [--keys K,…]`: two runs side by
// side, for scripts (--json) and for a report (--md): the resolved config keys that differ, a
// summary of each, and their series aligned by global step with TensorBoard's smoothing. A side
// is a run on a target (RUN, TARGET:RUN) or a local log file; see compare-sides.ts.
import { parseCli } from '../runs/cli-target.js';
import { REWARD_KEY, STALENESS_AVG_KEY, SUMMARY_KEYS, SUMMARY_PREFIXES } from '../metrics/compare.js';
import { STEP_TIME_KEY } from '../metrics/step-times.js';
import { CliError, EXIT } from './errors.js';
import { withJsonErrors } from './json-errors.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { Connections, parseSide, readSide } from './compare-sides.js';
import { buildCompare, compareJson, compareMarkdown, compareText } from './compare-output.js';

export const USAGE = 'usage: awrl-tui compare A B [--target T] [--json] [--md] [--smooth W] [--keys K,...]';
/** The series compared when --keys does not say: reward, staleness, step time. */
export const DEFAULT_KEYS = [REWARD_KEY, STALENESS_AVG_KEY, STEP_TIME_KEY];
/** TensorBoard's default smoothing weight. */
export const DEFAULT_SMOOTHING = 0.6;

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => compare(args));

function smoothingOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SMOOTHING;
  const w = Number(text);
  if (text.trim() === '' || !Number.isFinite(w) || w < 0 || w >= 1)
    throw new CliError(
      `--smooth needs a weight from 0 (off) to below 1, as TensorBoard's slider: not '${text}'`,
      EXIT.usage,
    );
  return w;
}

function keysOf(text: string | undefined): string[] {
  if (text === undefined) return DEFAULT_KEYS;
  const keys = text.split(',').map((k) => k.trim());
  if (keys.some((k) => k === ''))
    throw new CliError(`--keys needs stats keys separated by commas: not '${text}'`, EXIT.usage);
  return [...new Set(keys)];
}

async function compare(args: string[]): Promise<number> {
  quietWhenStdoutCloses();
  let p;
  try {
    p = parseCli(args, { values: ['--smooth', '--keys'], switches: ['--json', '--md', '--accept-new-host-key'] });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n${USAGE}`, EXIT.usage);
  }
  if (p.positional.length !== 2)
    throw new CliError(`compare needs two runs (or log files), A and B\n${USAGE}`, EXIT.usage);
  if (p.switches.has('--json') && p.switches.has('--md'))
    throw new CliError('--json and --md are two forms of the output: give one', EXIT.usage);
  const smoothing = smoothingOf(p.values['--smooth']);
  const keys = keysOf(p.values['--keys']);
  const specs = p.positional.map(parseSide);
  const conns = new Connections(p.switches.has('--accept-new-host-key'));
  try {
    const read = { keys: [...new Set([...keys, ...SUMMARY_KEYS])], prefixes: SUMMARY_PREFIXES };
    const [a, b] = await Promise.all(specs.map((s) => readSide(s, p.flags, conns, read)));
    const result = buildCompare(a, b, keys, smoothing);
    const text = p.switches.has('--json')
      ? `${compareJson(result)}\n`
      : p.switches.has('--md')
        ? compareMarkdown(result)
        : compareText(result);
    process.stdout.write(text);
    // A side whose log is gone has nothing to compare: said in the output, and the exit is 1.
    return a.history.log === 'missing' || b.history.log === 'missing' ? EXIT.failed : EXIT.ok;
  } finally {
    await conns.close();
  }
}
