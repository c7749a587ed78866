// House rules made mechanical (issue #19): typed typescript-eslint, no floating promises, and which
// room may import which (pure rooms import no I/O; the cockpit's drawing code no remote/runs).
// `npm run lint`; `npm test` runs it after tsc, before vitest.
import tseslint from 'typescript-eslint';

const IO_ROOMS = ['remote', 'runs', 'ui', 'cli', 'sim', 'gpu', 'preflight'];
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
const nodeIo = NODE_IO.flatMap((m) => [m, `node:${m}`]);
const rooms = (names, depth) =>
  names.flatMap((n) => [`${'../'.repeat(depth)}${n}`, `${'../'.repeat(depth)}${n}/*`, `${'../'.repeat(depth)}${n}/**`]);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test/**/*.mjs', 'test/harness/*.py', 'bin/**', 'coverage/**'] },
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
  {
    // Pure logic: parsing, config evaluation, metrics and health rules. No I/O room, no node I/O.
    files: ['src/{config,trainer-log,metrics,health}/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeIo.map((name) => ({
            name,
            message: 'a pure room does no I/O: take the bytes or data as an argument',
          })),
          patterns: [{ group: rooms(IO_ROOMS, 1), message: 'a pure room imports no I/O room' }],
        },
      ],
    },
  },
  {
    // The cockpit's drawing code: lines from data. Remote targets and runs are the session's business.
    files: ['src/ui/**/*.{ts,tsx}'],
    ignores: [
      'src/ui/session/**',
      'src/ui/connect.ts',
      'src/ui/connect-advice.ts',
      'src/ui/cockpit-args.ts',
      'src/ui/render.tsx',
      'src/ui/index.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...rooms(['remote', 'runs'], 1), ...rooms(['remote', 'runs'], 2)],
              message: 'ui drawing code draws the Session state; it imports no remote/runs',
            },
          ],
        },
      ],
    },
  },
);
