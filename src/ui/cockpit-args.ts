// Command-line words of `awrl-tui` and `awrl-tui watch`. Light (src/runs' light argument parser), so
// commands can parse and paint the first frame before loading the transport and the session.
import type { TargetFlags } from '../runs/index.js';
import { parseCli } from '../runs/cli-args.js';
import { IMAGE_MODES, type ImageModeWanted } from '../images/detect.js';

/**
 * The target flags plus the cockpit's own `--check-nodes H1,H2`: the other hosts of a direct
 * multi-node run (run.json does not record them), as for `awrl-tui stop`. They ride on the flags
 * because the flags are what reaches resolveTargets (src/ui/connect.ts), which hands them to each
 * target's connection (TargetConnection.directRunHosts).
 */
export interface CockpitFlags extends TargetFlags {
  directRunHosts?: string[];
}

export interface CockpitArgs {
  flags: CockpitFlags;
  /** Positional words (RUN for watch; FILE OVERRIDE… after --config). */
  positional: string[];
  configFile?: string;
  overrides: string[];
  /** `--notify URL` (repeatable) and `--no-terminal-notify`: the open run's notifications (src/notify). */
  notify: { lists: Record<string, string[]>; switches: Set<string> };
  /** `--baseline RUN`: a run (on any of the targets) drawn beside the open one. */
  baseline?: string;
  /** `--images auto|blocks|kitty|sixel|iterm|none`: how the Trajectories screen draws screenshots. */
  images: ImageModeWanted;
}

// The same rule as `awrl-tui stop --check-nodes` and src/remote's NODE_NAME: ssh would read a
// leading '-' as an option, and a name with spaces or quotes is no hostname.
const HOST_NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.:@-]{0,253}$/;

/** `--check-nodes H1,H2` -> ['H1', 'H2']; throws a one-line message on a name that is no host. */
export function parseHostList(flag: string, value: string): string[] {
  const hosts = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const bad = hosts.find((h) => !HOST_NAME.test(h));
  if (bad !== undefined) throw new Error(`${flag}: '${bad}' is not a host name`);
  if (hosts.length === 0) throw new Error(`${flag} needs host names (H1,H2)`);
  return hosts;
}

/** `[--target T] [-F FILE] [--workdir D] … [--check-nodes H1,H2] [--config FILE [OVERRIDE…]] [WORD…]`:
 *  the same target flags as the headless commands (src/runs parseCli); with --config, the words are
 *  its overrides. Throws a one-line message. */
export function parseCockpitArgs(args: string[]): CockpitArgs {
  const p = parseCli(args, {
    values: ['--config', '--check-nodes', '--baseline', '--images'],
    lists: ['--notify'],
    switches: ['--no-terminal-notify'],
  });
  const notify = { lists: p.lists, switches: p.switches };
  const hosts = p.values['--check-nodes'];
  const flags: CockpitFlags =
    hosts !== undefined ? { ...p.flags, directRunHosts: parseHostList('--check-nodes', hosts) } : p.flags;
  const configFile = p.values['--config'];
  const baseline = p.values['--baseline'];
  const images = (p.values['--images'] ?? 'auto') as ImageModeWanted;
  if (!IMAGE_MODES.includes(images)) throw new Error(`--images takes ${IMAGE_MODES.join('|')}, not '${images}'`);
  const base = { images, ...(baseline !== undefined ? { baseline } : {}) };
  return configFile !== undefined
    ? { flags, positional: [], configFile, overrides: p.positional, notify, ...base }
    : { flags, positional: p.positional, overrides: [], notify, ...base };
}
