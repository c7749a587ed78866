// `awrl-tui config check|show|diff|argv FILE [OVERRIDE…]`: the config engine on the command line.
// Reads the file here (the engine is pure) and passes the NAMES of set env vars, never values.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  diffConfigs,
  evaluateConfig,
  formatChange,
  formatDiagnostic,
  typedJson,
  type ConfigEvaluation,
  type Diagnostic,
} from '../config/index.js';
import { CliError, EXIT } from './errors.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { withJsonErrors } from './json-errors.js';

const USAGE = `usage:
  awrl-tui config check FILE [OVERRIDE…] [--json]
  awrl-tui config show FILE [OVERRIDE…] [--resolved] [--json]
  awrl-tui config diff FILE [OVERRIDE…]
  awrl-tui config argv FILE [OVERRIDE…] [--remote-config PATH]

--json (show): the config as JSON, exact where plain JSON is not: an int beyond 2^53 is written with
all its digits (9007199254740993), a float keeps Python's text (1.0, 5e-06), and a float JSON
cannot spell is the object {"$float": "inf"}, {"$float": "-inf"} or {"$float": "nan"}; the STRING 'inf'
stays the JSON string "inf" (jq: select(type == "object" and has("$float"))). A config key that begins
with $ is written with one more $ ($$float), so no config map reads as a float.`;

interface Parsed {
  sub: string;
  file: string;
  overrides: string[];
  json: boolean;
  resolved: boolean;
  remoteConfig?: string;
}

function parseArgs(args: string[]): Parsed {
  const [sub, ...rest] = args;
  // `config --help` never gets here: main.ts answers it from command-help.ts (exit 0).
  if (!sub) throw new CliError(USAGE, EXIT.usage);
  if (!['check', 'show', 'diff', 'argv'].includes(sub))
    throw new CliError(`unknown config subcommand '${sub}'\n${USAGE}`, EXIT.usage);
  const pos: string[] = [];
  let json = false;
  let resolved = false;
  let remoteConfig: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--json') json = true;
    else if (a === '--resolved') resolved = true;
    else if (a === '--remote-config') {
      remoteConfig = rest[++i];
      if (!remoteConfig) throw new CliError('--remote-config needs a PATH', EXIT.usage);
    } else if (a.startsWith('--remote-config=')) remoteConfig = a.slice('--remote-config='.length);
    else if (a.startsWith('--')) throw new CliError(`unknown option '${a}' for config ${sub}\n${USAGE}`, EXIT.usage);
    else pos.push(a);
  }
  const [file, ...overrides] = pos;
  if (!file) throw new CliError(`config ${sub} needs a FILE\n${USAGE}`, EXIT.usage);
  return { sub, file, overrides, json, resolved, remoteConfig };
}

function readConfig(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (e as Error).message;
    throw new CliError(`cannot read config ${file}: ${why}`, EXIT.usage, { code: 'file-unreadable' });
  }
}

// These stop show/diff/argv: the file or an override cannot be read as the trainer would read it.
const FATAL = /^(yaml-syntax|hydra-.*|override.*|unknown-key|type-mismatch|not-optional|interpolation)$/;

function failOnFatal(ev: ConfigEvaluation, file: string): void {
  const fatal = ev.diagnostics.filter((d) => d.severity === 'error' && FATAL.test(d.code));
  if (fatal.length)
    throw new CliError(fatal.map((d) => formatDiagnostic(d, file)).join('\n'), EXIT.usage, { code: 'config-invalid' });
}

/** A secret written into the config: show/diff/argv still print (the value <redacted>, key and
 *  line kept), then the error, and the exit status says the config cannot be launched. */
function secretErrors(ev: ConfigEvaluation, file: string): number {
  const ds = ev.diagnostics.filter((d) => d.code === 'secret-in-config');
  for (const d of ds) process.stderr.write(`${formatDiagnostic(d, file)}\n`);
  return ds.length ? EXIT.usage : EXIT.ok;
}

const envNames = () => new Set(Object.keys(process.env).filter((k) => process.env[k] !== undefined));
const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);

const diagJson = (d: Diagnostic) => ({ ...d });

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => config(args));

async function config(args: string[]): Promise<number> {
  // `config show … | head`: the reader wants nothing more; main.ts hands over the rest (flushStdio).
  quietWhenStdoutCloses();
  const p = parseArgs(args);
  const text = readConfig(p.file);
  const ev = evaluateConfig({ fileName: p.file, text, overrides: p.overrides, envNames: envNames() });
  switch (p.sub) {
    case 'check': {
      if (p.json) {
        out(
          JSON.stringify(
            {
              file: p.file,
              ok: !ev.hasErrors,
              errors: ev.diagnostics.filter((d) => d.severity === 'error').length,
              warnings: ev.diagnostics.filter((d) => d.severity === 'warning').length,
              experimentName: ev.experimentName,
              ...(ev.experimentNameUnknown ? { experimentNameUnknown: ev.experimentNameUnknown } : {}),
              trialName: ev.trialName,
              diagnostics: ev.diagnostics.map(diagJson),
            },
            null,
            2,
          ),
        );
      } else {
        for (const d of ev.diagnostics) out(formatDiagnostic(d, p.file));
        const e = ev.diagnostics.filter((d) => d.severity === 'error').length;
        const w = ev.diagnostics.length - e;
        process.stderr.write(`${p.file}: ${e} error${e === 1 ? '' : 's'}, ${w} warning${w === 1 ? '' : 's'}\n`);
      }
      return ev.hasErrors ? EXIT.usage : EXIT.ok;
    }
    case 'show': {
      failOnFatal(ev, p.file);
      // Exact: ints beyond 2^53 keep their digits, a non-finite float is {"$float": "inf"} (json-out.ts).
      if (p.json) out(typedJson((p.resolved ? ev.resolvedTree : ev.effectiveTree) ?? { t: 'null' }));
      else out(ev.effectiveYaml({ resolved: p.resolved }));
      return secretErrors(ev, p.file);
    }
    case 'diff': {
      failOnFatal(ev, p.file);
      const base = evaluateConfig({ fileName: p.file, text, envNames: envNames() });
      if (!base.resolved || !ev.resolved)
        throw new CliError(`${p.file}: cannot resolve the config`, EXIT.usage, { code: 'config-invalid' });
      const changes = diffConfigs(base.resolved, ev.resolved);
      if (changes.length === 0) out('no changes');
      for (const c of changes) {
        const o = ev.originOf(c.key);
        const why =
          o.kind === 'override'
            ? `  (override ${o.index} '${ev.maskedOverrides[o.index - 1]}')`
            : c.kind === 'changed'
              ? '  (through an interpolation)'
              : '';
        out(`${formatChange(c)}${why}`);
      }
      return secretErrors(ev, p.file);
    }
    case 'argv': {
      failOnFatal(ev, p.file);
      // The trainer finds its config by stripping '.yaml' (Hydra config name): any other suffix fails.
      const remote = p.remoteConfig ?? basename(p.file).replace(/\.(yml|YAML|YML)$/, '.yaml');
      if (!remote.endsWith('.yaml'))
        throw new CliError(
          `--remote-config ${remote}: the uploaded config must end with .yaml (the trainer strips .yaml to find it)`,
          EXIT.usage,
        );
      const argv = ev.launchArgv({ remoteConfigPath: remote });
      for (const a of argv) out(a);
      out(
        `# experiment_name: ${ev.experimentName ?? (ev.experimentNameUnknown ? `unknown (${ev.experimentNameUnknown})` : '(unset)')}`,
      );
      out(`# trial_name: ${ev.trialName ?? '(unset)'}`);
      for (const d of ev.diagnostics.filter((x) => x.severity === 'error' && x.code !== 'secret-in-config'))
        process.stderr.write(`${formatDiagnostic(d, p.file)}\n`);
      return secretErrors(ev, p.file);
    }
  }
  return EXIT.usage;
}
