// The exit code of every headless command for every kind of failure, as one table: --help prints
// it, and test/cli/exit-codes.test.ts runs each cell against a real sshd. Meanings are errors.ts's
// EXIT: 2 = fix your input (retrying the same command cannot help), 4 = the host did not answer
// (retrying may), 1 / 3 = how the run ended. A '-' cell: the command cannot meet that failure.
import { EXIT, type ErrorCode } from './errors.js';

/** The run's life, then the commands that read a run (or reach a person): --help prints one table
 *  each, so both stay within 100 columns. */
export const RUN_COMMANDS = ['--launch', 'runs', 'follow', 'stop', 'preflight', 'config'] as const;
export const READ_COMMANDS = ['alerts', 'episodes', 'compare', 'sentinel', 'notify'] as const;
export const TABLE_COMMANDS = [...RUN_COMMANDS, ...READ_COMMANDS] as const;
export type TableCommand = (typeof TABLE_COMMANDS)[number];

export interface ExitRow {
  failure: string;
  /** The --json error line's code(s) for this failure ('' when it is a result, not an error). */
  codes: ErrorCode[];
  exits: Partial<Record<TableCommand, number | string>>;
}

const { usage, disconnected, failed, stopped } = EXIT;
const all = (n: number, cmds: readonly TableCommand[] = TABLE_COMMANDS) => Object.fromEntries(cmds.map((c) => [c, n]));
const remote = [
  '--launch',
  'runs',
  'follow',
  'stop',
  'preflight',
  'alerts',
  'episodes',
  'compare',
  'sentinel',
] as const;
/** The commands that take a RUN id on a target. */
const byRun = { follow: usage, stop: usage, alerts: usage, episodes: usage, compare: usage, sentinel: usage };

export const EXIT_TABLE: ExitRow[] = [
  { failure: 'bad arguments, unreadable file', codes: ['usage', 'file-unreadable'], exits: all(usage) },
  {
    failure: 'config errors',
    codes: ['config-invalid'],
    exits: { '--launch': usage, preflight: usage, config: usage },
  },
  { failure: 'host unreachable', codes: ['host-unreachable'], exits: all(disconnected, remote) },
  {
    failure: 'host key unknown or changed',
    codes: ['host-key-unknown', 'host-key-mismatch'],
    exits: all(usage, remote),
  },
  { failure: 'login refused', codes: ['auth-failed'], exits: all(usage, remote) },
  // Not bad input: the same command works in a terminal, or over a ControlMaster (test/remote/second-factor*).
  { failure: 'second factor, no terminal', codes: ['login-needs-person'], exits: all(disconnected, remote) },
  { failure: 'unknown run', codes: ['run-not-found'], exits: { '--launch': usage, ...byRun } },
  {
    failure: 'workdir missing on the target',
    codes: ['workdir-missing'],
    exits: { '--launch': usage, runs: usage, ...byRun },
  },
  // A target without GNU stat (BusyBox): nothing can be said about its runs until it has one.
  {
    failure: 'a command missing on the target',
    codes: ['command-missing'],
    exits: { '--launch': usage, runs: usage, ...byRun },
  },
  { failure: 'a run of the trial is active', codes: ['run-active'], exits: { '--launch': usage } },
  { failure: '--resume of a finished run', codes: ['run-finished'], exits: { '--launch': usage } },
  { failure: 'pre-flight errors', codes: ['preflight-failed'], exits: { '--launch': usage, preflight: usage } },
  {
    failure: 'connection lost (following)',
    codes: ['disconnected'],
    exits: { '--launch': disconnected, follow: disconnected },
  },
  {
    failure: 'the run failed / was stopped',
    codes: [],
    exits: { '--launch': `${failed}/${stopped}`, follow: `${failed}/${stopped}` },
  },
  { failure: 'tagged leftovers after stop', codes: [], exits: { stop: failed } },
  // Dumping off, nothing dumped yet, or wiped by a restart (webgym deletes the rollout dir).
  { failure: 'no trajectory dumps', codes: ['no-dumps'], exits: { episodes: usage } },
  // A URL that is no channel is refused before anything connects (its secret parts never printed).
  { failure: 'a notification URL not understood', codes: ['usage'], exits: { sentinel: usage, notify: usage } },
  { failure: 'a channel did not take the test', codes: [], exits: { notify: failed } },
  { failure: "a side's log is gone", codes: [], exits: { compare: failed } },
  // A node that could not be reached, or whose GPUs nvidia-smi could not list, is no all-clear.
  { failure: 'leftovers not fully checked', codes: [], exits: { stop: failed } },
];

/** The tables as --help prints them (each within 100 columns; the --json codes are listed under
 *  them): a row only in the tables where one of its commands has a cell. */
export function formatExitTable(): string {
  return [formatTable(RUN_COMMANDS), '', formatTable(READ_COMMANDS)].join('\n');
}

function formatTable(commands: readonly TableCommand[]): string {
  const head = ['failure', ...commands];
  const rows = EXIT_TABLE.filter((r) => commands.some((c) => r.exits[c] !== undefined)).map((r) => [
    r.failure,
    ...commands.map((c) => String(r.exits[c] ?? '-')),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')}`;
  return [line(head), ...rows.map(line)].join('\n');
}
