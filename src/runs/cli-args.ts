// Command-line words shared by every command that takes a target: the target flags, the command's
// own options and switches, and positional words. Light on purpose (no transport, no ssh2), so the
// cockpit can parse its arguments and paint a first frame before loading anything heavy.
import type { TargetFlags } from './targets.js';

/** Flags that take a value, mapped to TargetFlags fields (repeatable ones are arrays). */
export const TARGET_VALUE_FLAGS: Record<string, keyof TargetFlags> = {
  '--target': 'target',
  '-F': 'sshConfigFile',
  '--ssh': 'sshClient',
  '--workdir': 'workdir',
  '--python': 'python',
  '--setup': 'setup',
  '--setup-timeout': 'setupTimeoutS',
  '--backend': 'backend',
  '--partition': 'partition',
  '--nodes': 'nodes',
  '--gpus-per-node': 'gpusPerNode',
  '--cpus-per-task': 'cpusPerTask',
  '--time': 'timeLimit',
  '--time-limit': 'timeLimit',
  '--account': 'account',
  '--sbatch-arg': 'sbatchArgs',
  '--forward-env': 'forwardEnv',
  '--no-forward-env': 'noForwardEnv',
};
const NUMERIC: ReadonlySet<keyof TargetFlags> = new Set(['nodes', 'gpusPerNode', 'cpusPerTask', 'setupTimeoutS']);

export interface ParsedCli {
  flags: TargetFlags;
  /** Other `--name value` options the command declared. */
  values: Record<string, string>;
  /** Declared repeatable options (`--notify URL` …), every value in order. */
  lists: Record<string, string[]>;
  /** Declared boolean switches that were given. */
  switches: Set<string>;
  positional: string[];
}

/**
 * Parses `args`: target flags, the command's own value options and switches (`--x v` or `--x=v`),
 * everything else positional (config overrides never start with `-`). Throws a one-line message.
 */
export function parseCli(
  args: string[],
  own: { values?: string[]; switches?: string[]; lists?: string[] } = {},
): ParsedCli {
  const values = new Set(own.values ?? []);
  const switches = new Set(own.switches ?? []);
  const lists = new Set(own.lists ?? []);
  const out: ParsedCli = { flags: {}, values: {}, lists: {}, switches: new Set(), positional: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (switches.has(name) && eq < 0) {
      out.switches.add(name);
      continue;
    }
    if (lists.has(name)) {
      const v = eq > 0 ? a.slice(eq + 1) : args[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      (out.lists[name] ??= []).push(v);
      continue;
    }
    if (name in TARGET_VALUE_FLAGS || values.has(name)) {
      const v = eq > 0 ? a.slice(eq + 1) : args[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      const field = TARGET_VALUE_FLAGS[name];
      if (!field) out.values[name] = v;
      else if (field === 'sbatchArgs' || field === 'forwardEnv' || field === 'noForwardEnv')
        (out.flags[field] ??= []).push(v);
      else if (NUMERIC.has(field)) {
        if (!/^\d+$/.test(v)) throw new Error(`${name} needs a whole number, not '${v}'`);
        (out.flags as Record<string, unknown>)[field] = Number(v);
      } else (out.flags as Record<string, unknown>)[field] = v;
      continue;
    }
    if (a.startsWith('-') && a !== '-') throw new Error(`unknown option '${a}' (see 'awrl-tui --help')`);
    out.positional.push(a);
  }
  return out;
}
