// One log record of the trainer rendered for each place it lands, byte-faithful to AReaL's
// logging (docs/trainer.md §4–5, fixture run-a). Pure: returns strings, the caller writes them.
//
//   main.log           HEADER <colour>TS LOGGER LEVEL: MESSAGE<reset>[\n<traceback>]
//   stdout             <colour> + the main.log form (the stream formatter starts with %(log_color)s)
//   merged.log         `[main]    ` + the main.log form, on the FIRST line only (the handler's format
//                      prefixes the record, not its lines)
//   worker, merged.log `[actor]   ` on EVERY physical line (the launcher pipes worker output through sed)
//   worker, Ray        `(RayRPCServer pid=N, ip=A) ` on every line of the controller's stdout
//
// colorlog appends the reset in formatMessage, i.e. before logging appends the traceback: so a
// traceback follows the reset, while a table (part of the message) ends with it.
import { logTimestamp } from './pyfmt.js';

export const AREAL_HEADER = '\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m';
export const RESET = '\x1b[0m';
export type Level = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

// colorlog escape codes by colour name.
const CODES: Record<string, string> = {
  white: '\x1b[37m',
  blue: '\x1b[34m',
  cyan: '\x1b[36m',
  yellow: '\x1b[33m',
  red: '\x1b[31m',
  light_green: '\x1b[92m',
  light_cyan: '\x1b[96m',
  light_purple: '\x1b[95m',
  'bold_white,bg_red': '\x1b[01;37m\x1b[41m',
};

// Per-logger colours of the vendored AReaL 0.5.3 as the fixture shows them (INFO/DEBUG only).
const LOGGER_COLOURS: Record<string, string> = {
  RayScheduler: 'blue',
  LocalScheduler: 'blue',
  SlurmScheduler: 'blue',
  PPOActor: 'cyan',
  StatsLogger: 'light_green',
  RLTrainer: 'light_green',
  WebGymWorkflow: 'light_purple',
};

export function colourFor(logger: string, level: Level): string {
  if (level === 'WARNING') return CODES.yellow;
  if (level === 'ERROR') return CODES.red;
  if (level === 'CRITICAL') return CODES['bold_white,bg_red'];
  const named = LOGGER_COLOURS[logger];
  if (named) return CODES[named];
  if (/FSDPEngine|MegatronEngine|RemoteInfEngine/.test(logger)) return CODES.light_cyan;
  return CODES.white;
}

export interface LogRecord {
  timeMs: number;
  logger: string;
  level: Level;
  message: string;
  /** A formatted traceback appended after the record (Python's exc_info). */
  traceback?: string;
}

/** The main.log form, without the final newline. */
export function formatRecord(r: LogRecord): string {
  const head = `${AREAL_HEADER} ${colourFor(r.logger, r.level)}${logTimestamp(r.timeMs)} ${r.logger} ${r.level}: ${r.message}${RESET}`;
  return r.traceback ? `${head}\n${r.traceback.replace(/\n$/, '')}` : head;
}

export const MERGED_MAIN_PREFIX = '[main]'.padEnd(10);

/** `[actor]   `, `[rollout] `: merged.log's fixed-width source prefix for a worker role. */
export function mergedPrefix(role: string): string {
  return `[${role}]`.padEnd(10);
}

export function rayPrefix(pid: number, ip: string): string {
  return `(RayRPCServer pid=${pid}, ip=${ip}) `;
}

export const renderMain = (r: LogRecord): string => formatRecord(r) + '\n';
export const renderMergedMain = (r: LogRecord): string => MERGED_MAIN_PREFIX + formatRecord(r) + '\n';
export const renderStdoutMain = (r: LogRecord): string => colourFor(r.logger, r.level) + formatRecord(r) + '\n';

/** Every physical line prefixed: a worker's record in merged.log or forwarded by Ray. */
export function prefixEveryLine(text: string, prefix: string): string {
  return (
    text
      .split('\n')
      .map((l) => prefix + l)
      .join('\n') + '\n'
  );
}

/** A Python traceback as `traceback.format_exc()` prints it (frames are (file, line, function)). */
export function formatTraceback(
  frames: ReadonlyArray<readonly [string, number, string, string?]>,
  excLine: string,
): string {
  const body = frames
    .map(([file, line, fn, code]) => `  File "${file}", line ${line}, in ${fn}` + (code ? `\n    ${code}` : ''))
    .join('\n');
  return `Traceback (most recent call last):\n${body}\n${excLine}`;
}
