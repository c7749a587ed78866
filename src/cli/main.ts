// Entry point: argv -> one command. Each command lives in its own file and is loaded lazily so
// that `awrl-tui --version` or `config check` does not pay for Ink, React or ssh2.
import { CliError, EXIT } from './errors.js';
import { flushStdio } from './stdio.js';
import { giveBackCaCerts } from './launcher-env.js';

giveBackCaCerts(process.env);

type CommandModule = { run(args: string[]): Promise<number> };

const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  config: () => import('./config-command.js'),
  parse: () => import('./parse-command.js'),
  sim: () => import('./sim-command.js'),
  runs: () => import('./runs-command.js'),
  stop: () => import('./stop-command.js'),
  watch: () => import('./watch-command.js'),
  follow: () => import('./follow-command.js'),
  compare: () => import('./compare-command.js'),
  preflight: () => import('./preflight-command.js'),
  sentinel: () => import('./sentinel-command.js'),
  'sentinel-run': () => import('./sentinel-run-command.js'),
  notify: () => import('./notify-command.js'),
  alerts: () => import('./alerts-command.js'),
  episodes: () => import('./episodes-command.js'),
};

async function dispatch(argv: string[]): Promise<number> {
  const first = argv[0];
  if (first === '--help' || first === '-h' || first === 'help') {
    // Loaded here only: every other command skips the help text's modules at start-up.
    process.stdout.write((await import('./help.js')).HELP);
    return EXIT.ok;
  }
  if (first === '--version' || first === '-V') {
    process.stdout.write(`awrl-tui ${(await import('./version.js')).readVersion()}\n`);
    return EXIT.ok;
  }
  // `COMMAND --help` / `-h`: that command's usage (exit 0), before its arguments are parsed.
  const help = await commandHelp(argv);
  if (help !== null) {
    process.stdout.write(help + '\n');
    return EXIT.ok;
  }
  if (argv.includes('--launch')) return (await import('./launch-command.js')).run(argv.filter((a) => a !== '--launch'));
  if (argv.includes('--demo')) return (await import('./demo-command.js')).run(argv.filter((a) => a !== '--demo'));
  if (first !== undefined && !first.startsWith('-')) {
    const load = COMMANDS[first];
    if (!load) throw new CliError(`unknown command '${first}'. Run 'awrl-tui --help' for the list.`, EXIT.usage);
    return (await load()).run(argv.slice(1));
  }
  return (await import('./cockpit-command.js')).run(argv);
}

/** The usage of the command `argv` names, when it asks for help; else null. The cockpit's own
 *  words (`--target T --help`) get the whole help text; an unknown command is left to dispatch. */
async function commandHelp(argv: string[]): Promise<string | null> {
  if (!argv.includes('--help') && !argv.includes('-h')) return null;
  const { COMMAND_HELP } = await import('./command-help.js');
  const word = argv.includes('--launch') ? '--launch' : argv.includes('--demo') ? '--demo' : argv[0];
  if (word !== undefined && COMMAND_HELP[word] !== undefined) return COMMAND_HELP[word];
  if (word !== undefined && !word.startsWith('-')) return null;
  return (await import('./help.js')).HELP.trimEnd();
}

let code: number;
try {
  code = await dispatch(process.argv.slice(2));
} catch (thrown) {
  // A failure that is the user's to fix (a target without GNU stat) is said as such, not as a bug.
  const err = (await import('./known-errors.js')).knownCliError(thrown);
  // Loaded on failure only: it brings the connection-failure and secret-scrubbing modules.
  (await import('./json-errors.js')).reportJsonError(process.argv.slice(2), thrown);
  if (err instanceof CliError) {
    process.stderr.write(`awrl-tui: ${err.humanLine}\n`);
    code = err.exitCode;
  } else {
    // An unexpected failure is a bug: say so plainly, keep the stack for the report.
    process.stderr.write(
      `awrl-tui: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    code = EXIT.internal;
  }
}
// A finished command exits now, even if a poller or a socket forgot to unref itself: a CLI that
// hangs after its work is done is worse than one that cuts a stray timer. What it printed is
// handed over first: a pipe's slow reader would otherwise lose the end of a big output.
await flushStdio();
process.exit(code);
