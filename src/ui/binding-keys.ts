// The vocabulary of the binding table (bindings.ts): what a binding is, the names keys go by, how
// they are written in hints and help, and the movement every list shares.
import type { ActionEffect, Effect, KeyInfo, KeyContext, UiState } from './ui-state.js';

/** Where a binding applies: a screen, or a dialog/overlay that takes every key while open. */
export type Scope =
  | 'global'
  | 'runs'
  | 'dashboard'
  | 'log'
  | 'config'
  | 'eval'
  | 'health'
  | 'trajectories'
  | 'help'
  | 'history'
  | 'launch'
  | 'leftovers'
  | 'input'
  | 'login';

export type Result = { state: UiState; effects: Effect[] };

/** The effect asking the session for one of its actions, by name, typed by SessionActions:
 *  `act.stopRun(id)`, `act.launch({ skipPreflight: true })`. */
export const act = new Proxy(
  {},
  {
    get:
      (_, kind) =>
      (...args: unknown[]) =>
        ({ kind, args }) as unknown as Effect,
  },
) as { [K in ActionEffect['kind']]: (...args: Extract<ActionEffect, { kind: K }>['args']) => Effect };
export const same = (state: UiState, effects: Effect[] = []): Result => ({ state, effects });

export interface Binding {
  /** Canonical key names (see keyName): 'q', 'ctrl-c', 'up', 'pgdn', 'enter', 'end', 'shift-tab'. */
  keys: readonly string[];
  scopes: readonly Scope[];
  /** A stable name for the action (tests and hints refer to it). */
  command: string;
  /** The `?` overlay's text. */
  description: string;
  /** The footer/title hint's text after the key ("zoom"). */
  short?: string;
  /** Listed in the screen's hint line (the help lists every binding). */
  shown?: boolean;
  /** Why the key does nothing now (shown on the status line), or null when it acts. */
  disabledReason?: (ctx: KeyContext, s: UiState) => string | null;
  run: (s: UiState, ctx: KeyContext, name: string) => Result;
}

/** The name a key press goes by in the table. */
export function keyName(input: string, key: KeyInfo): string {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.pageUp) return 'pgup';
  if (key.pageDown) return 'pgdn';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.return) return 'enter';
  if (key.tab) return key.shift ? 'shift-tab' : 'tab';
  if (key.escape && !input) return 'esc';
  if (key.backspace) return 'backspace';
  if (key.delete) return 'delete';
  if (key.ctrl) return `ctrl-${input}`;
  if (key.meta || key.escape) return `meta-${input}`;
  return input;
}

const LABELS: Record<string, string> = {
  up: '↑',
  down: '↓',
  pgup: 'PgUp',
  pgdn: 'PgDn',
  enter: 'Enter',
  esc: 'Esc',
  tab: 'Tab',
  'shift-tab': 'Shift-Tab',
  end: 'End',
  home: 'Home',
  delete: 'Delete',
};

/** "↑ ↓ k j", "Ctrl-c", "x / Delete": a binding's keys as people write them. */
export function keyLabel(b: Pick<Binding, 'keys'>): string {
  const label = (k: string) => LABELS[k] ?? (k.startsWith('ctrl-') ? `Ctrl-${k.slice(5)}` : k);
  // Two ways to the same thing read "x / Delete"; a run of plain keys "1 2 3 4", "↑ ↓ k j PgUp PgDn".
  return b.keys.length === 2 && b.keys.some((k) => k.length > 1)
    ? b.keys.map(label).join(' / ')
    : b.keys.map(label).join(' ');
}

const MOVE: Record<string, number> = { up: -1, k: -1, down: 1, j: 1 };
export const MOVE_KEYS = ['up', 'down', 'k', 'j', 'pgup', 'pgdn'] as const;
/** Rows a movement key moves: ±1, or a page. */
export function moveBy(name: string, page: number): number {
  return MOVE[name] ?? (name === 'pgup' ? -page : name === 'pgdn' ? page : 0);
}
export const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(v, hi));
