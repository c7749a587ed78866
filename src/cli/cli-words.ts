// Words of the command line that several commands repeat or read alike: the target flags as the
// user typed them (for advice), whole-number flag values. Light on purpose: `follow` and `stop`
// import it without loading the launch path.
import { TARGET_VALUE_FLAGS } from '../runs/cli-target.js';
import { shellQuote } from '../remote/quote.js';
import { CliError, EXIT } from './errors.js';

/** The target words the user typed (`--target h -F f --workdir d` …), quoted, to repeat in advice. */
export function targetWords(args: string[]): string {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    // What names the target, not what a launch forwards (a stop or follow has no use for it).
    if (!(name in TARGET_VALUE_FLAGS) || name === '--forward-env' || name === '--no-forward-env') continue;
    const v = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (v !== undefined) words.push(name, shellQuote(v));
  }
  return words.join(' ');
}

/** A flag's whole-number value (seconds, counts), or the default when absent. */
export function wholeNumber(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v)) throw new CliError(`${name} needs a whole number, not '${v}'`, EXIT.usage);
  return Number(v);
}
