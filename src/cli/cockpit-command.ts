// `awrl-tui [--target T …] [--config FILE [OVERRIDE…]]`: the cockpit on the Runs screen (or the
// Config screen when a config is given). Needs a terminal; says which headless command to use otherwise.
// The first frame is painted before anything heavy loads (see ui/chrome.ts and cockpit-flow.ts).
import { readFile } from 'node:fs/promises';
import { CliError, EXIT } from './errors.js';
import { openCockpitBehindSplash } from './cockpit-flow.js';
import { notInteractiveReason } from '../ui/tty.js';
import { parseCockpitArgs } from '../ui/cockpit-args.js';
import { cockpitNotify } from './notify-words.js';
import { chooseImages } from './terminal-images.js';
import { baselineChoice, baselineSessionOptions } from './baseline-option.js';

export async function run(args: string[]): Promise<number> {
  const why = notInteractiveReason();
  if (why) throw new CliError(why, EXIT.usage);
  let parsed;
  try {
    parsed = parseCockpitArgs(args);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage);
  }
  if (parsed.positional.length)
    throw new CliError(`unexpected argument '${parsed.positional[0]}' (see 'awrl-tui --help')`, EXIT.usage);
  let config: { fileName: string; text: string; overrides: string[] } | null = null;
  if (parsed.configFile) {
    try {
      config = {
        fileName: parsed.configFile,
        text: await readFile(parsed.configFile, 'utf8'),
        overrides: parsed.overrides,
      };
    } catch (err) {
      throw new CliError(
        `cannot read ${parsed.configFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        EXIT.usage,
      );
    }
  }
  const images = await chooseImages(parsed.images, { askDa1: false });
  const baseline = await baselineSessionOptions(baselineChoice(parsed.baseline));
  const { failures, targets } = await openCockpitBehindSplash({
    flags: parsed.flags,
    screen: config ? 'config' : 'runs',
    connecting: 'connecting…',
    // A target that does not answer at start is shown with its problem and `r`, not an exit.
    openDisconnected: true,
    images,
    session: {
      config,
      launchTarget: parsed.flags.target,
      notify: cockpitNotify(parsed.notify),
      ...baseline.options,
    },
  }).finally(() => baseline.close());
  // Targets that could not be reached are said once the terminal is back (the others were used).
  for (const f of failures) process.stderr.write(`awrl-tui: ${f}\n`);
  // Quit while no target was ever reached: still disconnected (4), as before the cockpit opened.
  return targets > 0 && failures.length === targets ? EXIT.disconnected : EXIT.ok;
}
