// Command-line words of `awrl-tui` and `awrl-tui watch`. Light (types only from src/runs), so
// commands can parse and paint the first frame before loading the transport and the session.
import type { TargetFlags } from '../runs/index.js';

export interface CockpitArgs {
  flags: TargetFlags;
  /** Positional words (RUN for watch; FILE OVERRIDE… after --config). */
  positional: string[];
  configFile?: string;
  overrides: string[];
}

const VALUE_FLAGS: Record<string, keyof TargetFlags> = {
  '--target': 'target',
  '-F': 'sshConfigFile',
  '--workdir': 'workdir',
  '--python': 'python',
  '--setup': 'setup',
  '--backend': 'backend',
  '--partition': 'partition',
  '--time-limit': 'timeLimit',
  '--account': 'account',
};

/** `[--target T] [-F FILE] [--workdir D] … [--config FILE [OVERRIDE…]] [WORD…]`; throws a one-line message. */
export function parseCockpitArgs(args: string[]): CockpitArgs {
  const flags: TargetFlags = {};
  const positional: string[] = [];
  const overrides: string[] = [];
  let configFile: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    const inline = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : undefined;
    if (name in VALUE_FLAGS || name === '--config') {
      const v = inline ?? args[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      if (name === '--config') configFile = v;
      else (flags as Record<string, unknown>)[VALUE_FLAGS[name]] = v;
    } else if (a.startsWith('-') && !configFile) {
      throw new Error(`unknown option '${a}' (see 'awrl-tui --help')`);
    } else if (configFile) overrides.push(a);
    else positional.push(a);
  }
  return { flags, positional, configFile, overrides };
}

