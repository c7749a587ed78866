// Command-line words of `awrl-tui` and `awrl-tui watch`. Light (src/runs' light argument parser), so
// commands can parse and paint the first frame before loading the transport and the session.
import type { TargetFlags } from '../runs/index.js';
import { parseCli } from '../runs/cli-args.js';

export interface CockpitArgs {
  flags: TargetFlags;
  /** Positional words (RUN for watch; FILE OVERRIDE… after --config). */
  positional: string[];
  configFile?: string;
  overrides: string[];
}

/** `[--target T] [-F FILE] [--workdir D] … [--config FILE [OVERRIDE…]] [WORD…]`: the same target flags
 *  as the headless commands (src/runs parseCli); with --config, the words are its overrides. Throws a
 *  one-line message. */
export function parseCockpitArgs(args: string[]): CockpitArgs {
  const p = parseCli(args, { values: ['--config'] });
  const configFile = p.values['--config'];
  return configFile !== undefined
    ? { flags: p.flags, positional: [], configFile, overrides: p.positional }
    : { flags: p.flags, positional: p.positional, overrides: [] };
}
