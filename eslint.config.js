// House rules made mechanical (issue #19): typed typescript-eslint, no floating promises, and which
// room may import which (pure rooms import no I/O; the cockpit's drawing code no remote/runs).
// `npm run lint`; `npm test` runs it after tsc, before vitest.
import tseslint from 'typescript-eslint';

/**
 * The rooms of src/ (docs/architecture.md), lowest first: a room imports only rooms before it, so no
 * two rooms import each other (preflight builds on runs, never the reverse). The first six are pure.
 * test/architecture/room-order.test.ts checks the whole graph against this, dynamic imports too.
 */
export const ROOM_ORDER = [
  ...['config', 'trainer-log', 'metrics', 'health', 'episodes', 'images'],
  ...['remote', 'gpu', 'runs', 'watch', 'notify', 'sentinel', 'preflight', 'sim', 'session', 'ui', 'cli'],
];
const PURE_ROOMS = ROOM_ORDER.slice(0, 6);
const NODE_IO = [
  'fs',
  'fs/promises',
  'child_process',
  'net',
  'tls',
  'http',
  'https',
  'dgram',
  'dns',
  'readline',
  'worker_threads',
  'cluster',
];
const nodeIo = NODE_IO.flatMap((m) => [m, `node:${m}`]).map((name) => ({
  name,
  message: 'a pure room does no I/O: take the bytes or data as an argument',
}));
/** `../runs`, `../../runs/x.js`, … from any depth inside a room (no subfolder is named like a room). */
const roomsRegex = (names) => `^(\\.\\./)+(${names.join('|')})(/|$)`;
const later = (room) => ROOM_ORDER.slice(ROOM_ORDER.indexOf(room) + 1);
const orderPattern = (room) => ({
  regex: roomsRegex(later(room)),
  message: PURE_ROOMS.includes(room)
    ? `a pure room imports no I/O room, and ${room} only rooms before it in ROOM_ORDER (eslint.config.js)`
    : `${room} imports only rooms before it in ROOM_ORDER (eslint.config.js): the other direction is a cycle`,
});
const restrict = (files, patterns, paths = []) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
});

// The cockpit's drawing code: lines from data. Remote targets and runs are the session's business.
const UI_NOT_DRAWING = ['src/ui/connect.ts', 'src/ui/cockpit-args.ts', 'src/ui/render.tsx', 'src/ui/index.ts'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/**/*.mjs', 'test/harness/*.py', 'bin/**', 'coverage/**'] },
  // A disable comment for a rule this config does not run is noise that hides nothing: an error, not a warning.
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}', 'test/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { project: ['./tsconfig.eslint.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // The tree's own conventions (kept as they are; not what this config is for).
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^(_|React$)', caughtErrors: 'none' },
      ],
    },
  },
  // One block per room (the last block naming a rule wins, so each file gets exactly one).
  // Pure logic (parsing, config evaluation, metrics and health rules): no I/O room, no node I/O either.
  ...PURE_ROOMS.map((room) => restrict([`src/${room}/**/*.ts`], [orderPattern(room)], nodeIo)),
  ...ROOM_ORDER.filter((room) => !PURE_ROOMS.includes(room) && later(room).length > 0).map((room) =>
    restrict([`src/${room}/**/*.{ts,tsx}`], [orderPattern(room)]),
  ),
  {
    ...restrict(
      ['src/ui/**/*.{ts,tsx}'],
      [
        orderPattern('ui'),
        {
          regex: roomsRegex(['remote', 'runs', 'watch']),
          message: 'ui drawing code draws the Session state; it imports no remote/runs/watch',
        },
      ],
    ),
    ignores: UI_NOT_DRAWING,
  },
);
