// Every key the cockpit answers to, in one table: the help overlay is generated from it, and the
// key handler's test walks it. Nothing is bound to Ctrl-b (tmux's prefix), Ctrl-j/k, or a lone Esc
// (tmux holds Esc for escape-time to see whether a sequence follows).

export interface KeyHelp {
  keys: string;
  what: string;
  where: 'everywhere' | 'runs' | 'dashboard' | 'config' | 'log' | 'input';
}

export const KEY_HELP: KeyHelp[] = [
  { keys: '1 2 3 4', what: 'Runs, Dashboard, Config, Log screens', where: 'everywhere' },
  { keys: 'Tab / Shift-Tab', what: 'next / previous screen', where: 'everywhere' },
  { keys: '?', what: 'this help (↑ ↓ PgUp PgDn scroll it when it is longer than the screen; any other key closes it)', where: 'everywhere' },
  { keys: 'q', what: 'quit the cockpit (the run keeps running); asks first while a launch is in progress', where: 'everywhere' },
  { keys: '↑ ↓ / k j', what: 'move the cursor or scroll', where: 'everywhere' },
  { keys: 'PgUp PgDn', what: 'move by a page', where: 'everywhere' },
  { keys: 'Enter', what: 'open the selected run on the dashboard', where: 'runs' },
  { keys: 'n', what: 'new launch (opens Config)', where: 'runs' },
  { keys: 's', what: 'stop the selected run (asks first)', where: 'runs' },
  { keys: 'r', what: 'refresh the list; connect again to the targets that could not be reached', where: 'runs' },
  { keys: 'o', what: 'selected run ended: leftover processes (PID, command); y stops only the run-tagged ones', where: 'runs' },
  { keys: 'z', what: 'zoom: cycle one panel full screen, then back', where: 'dashboard' },
  { keys: 'd', what: 'reward per difficulty on/off', where: 'dashboard' },
  { keys: 'L', what: "log pane: the trainer's own lines (ANSI stripped, stats tables as one line) / lines from parsed events", where: 'dashboard' },
  { keys: 'a', what: 'log: all lines / warnings and errors only', where: 'dashboard' },
  { keys: 'w', what: 'log: wrap long lines onto more rows / cut them with …', where: 'dashboard' },
  { keys: '/', what: 'search the log (Enter keeps it, an empty search clears it, Ctrl-c restores the previous one)', where: 'dashboard' },
  { keys: 'o', what: 'after the run ended: leftover processes (PID, command); y stops only the run-tagged ones', where: 'dashboard' },
  { keys: 'h', what: 'alert history: every alert seen, active and cleared (first seen, how often it fired, when it cleared); j k ↑ ↓ PgUp PgDn scroll, Esc or q closes', where: 'dashboard' },
  { keys: 'Enter', what: 'edit the selected value (typed by the schema; checked as you type)', where: 'config' },
  { keys: '/', what: 'find a key (jumps as you type)', where: 'config' },
  { keys: '+', what: 'add an override (a.b=v, +a.b=v, ++a.b=v, ~a.b)', where: 'config' },
  { keys: 'x', what: 'remove the override that sets the selected key', where: 'config' },
  { keys: 'p', what: 'pre-flight: check the target for this config now (the same checks as --launch)', where: 'config' },
  { keys: 'L', what: 'launch: shows the exact argv (j k ↑ ↓ PgUp PgDn scroll it when it is longer than the screen) and the pre-flight, then asks (y; S launches despite pre-flight errors; n cancels)', where: 'config' },
  { keys: 'a /', what: 'all lines on/off, search', where: 'log' },
  { keys: 'L', what: "the trainer's own lines / lines from parsed events", where: 'log' },
  { keys: 'h', what: 'alert history (as on the dashboard)', where: 'log' },
  { keys: 'w', what: 'wrap long lines / cut them', where: 'log' },
  { keys: 'Enter', what: 'accept the text', where: 'input' },
  { keys: 'Ctrl-c / Ctrl-g', what: 'cancel the text (never quits)', where: 'input' },
];

export const SCREENS = ['runs', 'dashboard', 'config', 'log'] as const;
export type ScreenId = (typeof SCREENS)[number];
export const SCREEN_TITLES: Record<ScreenId, string> = { runs: 'Runs', dashboard: 'Dashboard', config: 'Config', log: 'Log' };
