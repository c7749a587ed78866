// Command-line plumbing shared by `--launch`, `runs` and `stop`: target flags, the profile file,
// and opening the transport with a one-line error. Lives here (not in src/cli) so the three
// commands parse targets identically.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { openTransport, type Transport } from '../remote/index.js';
import { loadTargets, resolveTarget, targetsFilePath, TargetsFileError, type Target, type TargetFlags } from './targets.js';

/** Flags that take a value, mapped to TargetFlags fields (repeatable ones are arrays). */
const TARGET_VALUE_FLAGS: Record<string, keyof TargetFlags> = {
  '--target': 'target',
  '-F': 'sshConfigFile',
  '--workdir': 'workdir',
  '--python': 'python',
  '--setup': 'setup',
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
};
const NUMERIC: ReadonlySet<keyof TargetFlags> = new Set(['nodes', 'gpusPerNode', 'cpusPerTask']);

export interface ParsedCli {
  flags: TargetFlags;
  /** Other `--name value` options the command declared. */
  values: Record<string, string>;
  /** Declared boolean switches that were given. */
  switches: Set<string>;
  positional: string[];
}

/**
 * Parses `args`: target flags, the command's own value options and switches (`--x v` or `--x=v`),
 * everything else positional (config overrides never start with `-`). Throws a one-line message.
 */
export function parseCli(args: string[], own: { values?: string[]; switches?: string[] } = {}): ParsedCli {
  const values = new Set(own.values ?? []);
  const switches = new Set(own.switches ?? []);
  const out: ParsedCli = { flags: {}, values: {}, switches: new Set(), positional: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (switches.has(name) && eq < 0) {
      out.switches.add(name);
      continue;
    }
    if (name in TARGET_VALUE_FLAGS || values.has(name)) {
      const v = eq > 0 ? a.slice(eq + 1) : args[++i];
      if (v === undefined) throw new Error(`${name} needs a value`);
      const field = TARGET_VALUE_FLAGS[name];
      if (!field) out.values[name] = v;
      else if (field === 'sbatchArgs' || field === 'forwardEnv') (out.flags[field] ??= []).push(v);
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

/** Reads the profile file (absent = no profiles); a bad file is an error naming file:line. */
export function readProfiles(env: Record<string, string | undefined> = process.env): Record<string, Target> {
  const path = env.AWRL_TARGETS_FILE || targetsFilePath(env, homedir());
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  try {
    return loadTargets(text, path);
  } catch (err) {
    if (err instanceof TargetsFileError) throw new Error(err.message);
    throw err;
  }
}

export function targetFromFlags(flags: TargetFlags, profiles: Record<string, Target>): Target {
  const t = resolveTarget(flags, profiles);
  if (typeof t === 'string') throw new Error(t);
  return t;
}

/** Opens the transport headless; an unknown host key is accepted only with --accept-new-host-key. */
export async function connect(
  target: Target,
  opts: { acceptNewHostKey?: boolean; reconnectTimeoutMs?: number } = {},
): Promise<Transport> {
  try {
    return await openTransport(target.host, {
      sshConfigFile: target.sshConfigFile,
      acceptNewHostKey: opts.acceptNewHostKey,
      reconnect: opts.reconnectTimeoutMs !== undefined ? { maxElapsedMs: opts.reconnectTimeoutMs } : undefined,
    });
  } catch (err) {
    throw new Error(`cannot connect to ${target.name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
