// `awrl-tui preflight --target T --config FILE [OVERRIDE…] [--json]`: the config engine first (any
// error → exit 2, the target is not touched), then one probe on the target and the check list.
// Exit 0 when no check is an error, 2 otherwise.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { evaluateConfig, formatDiagnostic } from '../config/index.js';
import type { Transport } from '../remote/index.js';
import {
  loadTargets,
  resolveTarget,
  targetsFilePath,
  TargetsFileError,
  type Target,
  type TargetFlags,
} from '../runs/index.js';
import { formatChecks, hasErrors, runPreflight } from '../preflight/index.js';
import { CliError, EXIT } from './errors.js';
import { connectOrExit } from './connect-target.js';
import { withJsonErrors } from './json-errors.js';
import { dumpWipeWarning } from './dump-wipe-warning.js';
import { targetWords } from './cli-words.js';

const USAGE = `usage: awrl-tui preflight --target T --config FILE [OVERRIDE…] [--json] [--accept-new-host-key]
  target fields (override the profile in targets.yaml): -F/--ssh-config FILE, --workdir DIR, --python CMD,
  --setup LINE, --setup-timeout S, --backend direct|slurm, --partition P, --nodes N, --gpus-per-node N, --time LIMIT,
  --account A, --cpus-per-task N, --sbatch-arg ARG (repeatable), --forward-env NAME (repeatable)
  checks: --node HOST (another node's GPUs, repeatable), --step-seconds S (typical step time)`;

interface Parsed {
  flags: TargetFlags;
  config?: string;
  overrides: string[];
  json: boolean;
  /** Trust a host key seen for the first time (the unknown-key error tells the user to pass it). */
  acceptNewHostKey: boolean;
  nodes: string[];
  stepSeconds?: number;
}

const VALUE_FLAGS: Record<string, keyof TargetFlags | 'config' | 'node' | 'stepSeconds'> = {
  '--target': 'target',
  '-F': 'sshConfigFile',
  '--ssh-config': 'sshConfigFile',
  '--ssh': 'sshClient',
  '--workdir': 'workdir',
  '--python': 'python',
  '--setup': 'setup',
  '--setup-timeout': 'setupTimeoutS',
  '--backend': 'backend',
  '--partition': 'partition',
  '--nodes': 'nodes',
  '--gpus-per-node': 'gpusPerNode',
  '--time': 'timeLimit',
  '--time-limit': 'timeLimit',
  '--account': 'account',
  '--sbatch-arg': 'sbatchArgs',
  '--config': 'config',
  '--node': 'node',
  // The same target flags as --launch, so one script can pre-flight then launch with the same words.
  '--cpus-per-task': 'cpusPerTask',
  '--forward-env': 'forwardEnv',
  '--no-forward-env': 'noForwardEnv',
  '--step-seconds': 'stepSeconds',
};

function positiveInt(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new CliError(`${flag} needs a positive integer, not '${v}'`, EXIT.usage);
  return n;
}

export function parseArgs(args: string[]): Parsed {
  const p: Parsed = { flags: {}, overrides: [], json: false, acceptNewHostKey: false, nodes: [] };
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    let v: string | undefined;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    if (eq > 0 && VALUE_FLAGS[a.slice(0, eq)]) {
      v = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    if (a === '--json') p.json = true;
    else if (a === '--accept-new-host-key') p.acceptNewHostKey = true;
    else if (VALUE_FLAGS[a]) {
      if (v === undefined) v = args[++i];
      if (v === undefined) throw new CliError(`${a} needs a value\n${USAGE}`, EXIT.usage);
      const k = VALUE_FLAGS[a];
      if (k === 'config') p.config = v;
      else if (k === 'node') p.nodes.push(v);
      else if (k === 'stepSeconds') p.stepSeconds = positiveInt(a, v);
      else if (k === 'sbatchArgs' || k === 'forwardEnv' || k === 'noForwardEnv') (p.flags[k] ??= []).push(v);
      else if (k === 'nodes' || k === 'cpusPerTask' || k === 'setupTimeoutS') p.flags[k] = positiveInt(a, v);
      // 0 is a real answer (a CPU-only partition), as --launch takes it.
      else if (k === 'gpusPerNode') p.flags[k] = v === '0' ? 0 : positiveInt(a, v);
      else (p.flags as Record<string, unknown>)[k] = v;
    } else if (a.startsWith('-') && !a.startsWith('+') && !a.startsWith('~')) {
      throw new CliError(`unknown option '${a}'\n${USAGE}`, EXIT.usage);
    } else p.overrides.push(a);
  }
  if (!p.flags.target) throw new CliError(`preflight needs --target\n${USAGE}`, EXIT.usage);
  if (!p.config) throw new CliError(`preflight needs --config FILE\n${USAGE}`, EXIT.usage);
  return p;
}

function readText(file: string, what: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (what === 'profiles' && code === 'ENOENT') return null;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (e as Error).message;
    throw new CliError(`cannot read ${what === 'profiles' ? 'targets file' : 'config'} ${file}: ${why}`, EXIT.usage, {
      code: 'file-unreadable',
    });
  }
}

function target(flags: TargetFlags): Target {
  const file = process.env.AWRL_TARGETS_FILE || targetsFilePath(process.env, homedir());
  const text = readText(file, 'profiles');
  let profiles: Record<string, Target> = {};
  if (text !== null) {
    try {
      profiles = loadTargets(text, file);
    } catch (e) {
      if (e instanceof TargetsFileError) throw new CliError(e.message, EXIT.usage, { code: 'targets-file' });
      throw e;
    }
  }
  const t = resolveTarget(flags, profiles);
  if (typeof t === 'string') throw new CliError(t, EXIT.usage);
  return t;
}

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => preflight(args));

async function preflight(args: string[]): Promise<number> {
  const p = parseArgs(args);
  const file = p.config!;
  const text = readText(file, 'config')!;
  const envNames = new Set(
    Object.keys(process.env).filter((k) => process.env[k] !== undefined && process.env[k] !== ''),
  );
  const ev = evaluateConfig({ fileName: file, text, overrides: p.overrides, envNames });
  if (ev.hasErrors || !ev.resolved) {
    const errs = ev.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, file));
    throw new CliError(
      `${errs.join('\n')}\nthe config has errors: fix them first (nothing was checked on the target)`,
      EXIT.usage,
      { code: 'config-invalid' },
    );
  }
  const t = target(p.flags);
  // The same first connection as every other command: an unreachable host is 4 (retrying may
  // help), a refused host key or login 2, each with its --json code.
  const transport: Transport = await connectOrExit(t, {
    acceptNewHostKey: p.acceptNewHostKey,
    reconnectTimeoutMs: 30_000,
  });
  // Ctrl-C ends the probe on the target as well (a closed channel alone leaves it running there).
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const checks = await runPreflight(transport, {
      evaluation: ev,
      target: t,
      envNames,
      signal: abort.signal,
      ...(p.nodes.length ? { nodes: p.nodes } : {}),
      ...(p.stepSeconds ? { typicalStepSeconds: p.stepSeconds } : {}),
    });
    const failed = hasErrors(checks);
    // A warning beside the checks (stderr: the --json document stays as it is).
    if (ev.experimentName && ev.trialName) {
      const run = { experiment: ev.experimentName, trial: ev.trialName, runId: null };
      const wipe = await dumpWipeWarning(transport, ev, run, targetWords(args));
      if (wipe) process.stderr.write(`warning: ${wipe}\n`);
    }
    if (p.json) {
      process.stdout.write(
        JSON.stringify(
          {
            target: t.name,
            host: t.host,
            experimentName: ev.experimentName,
            trialName: ev.trialName,
            ok: !failed,
            checks,
          },
          null,
          2,
        ) + '\n',
      );
    } else {
      process.stdout.write(`preflight of ${ev.experimentName}/${ev.trialName} on ${t.name} (${t.backend})\n`);
      process.stdout.write(formatChecks(checks));
    }
    return failed ? EXIT.usage : EXIT.ok;
  } catch (e) {
    if (e instanceof CliError) throw e;
    if (abort.signal.aborted)
      throw new CliError(`preflight interrupted: the probe on ${t.name} was ended`, 130, { code: 'interrupted' });
    throw new CliError(`preflight on '${t.name}' failed: ${(e as Error).message}`, EXIT.usage, {
      code: 'preflight-failed',
    });
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    await transport.close();
  }
}
