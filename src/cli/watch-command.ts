// `awrl-tui watch RUN [--target T]`: the dashboard of one run. Without --target, the run is looked
// for on every target of the profile file. The first frame is painted before anything heavy loads
// (see cockpit-flow.ts).
import { CliError, EXIT } from './errors.js';
import { openCockpitBehindSplash } from './cockpit-flow.js';
import { notInteractiveReason } from '../ui/tty.js';
import { parseCockpitArgs } from '../ui/cockpit-args.js';
import { chooseImages } from './terminal-images.js';
import { cockpitNotify } from './notify-words.js';
import { baselineChoice, baselineSessionOptions } from './baseline-option.js';

export async function run(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCockpitArgs(args);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage);
  }
  const runId = parsed.positional[0];
  if (!runId || parsed.positional.length > 1) throw new CliError('usage: awrl-tui watch RUN [--target T]', EXIT.usage);
  const why = notInteractiveReason();
  if (why)
    throw new CliError(
      why.replace('the cockpit needs', "'watch' needs") +
        ` For ${runId}'s state, step and reward without one: 'awrl-tui runs --target T'.`,
      EXIT.usage,
    );
  const images = await chooseImages(parsed.images, { askDa1: false });
  const baseline = await baselineSessionOptions(baselineChoice(parsed.baseline));
  await openCockpitBehindSplash({
    flags: parsed.flags,
    screen: 'dashboard',
    images,
    checkWorkdir: true,
    connecting: `connecting to find ${runId}…`,
    noTargets: `no target to look for ${runId} on: give --target T (or define targets in targets.yaml)`,
    session: {
      openRunId: runId,
      notify: cockpitNotify(parsed.notify),
      ...baseline.options,
    },
  }).finally(() => baseline.close());
  return EXIT.ok;
}
