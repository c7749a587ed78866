import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Integration tests start real servers (sshd, slurm, tmux); give them room, and run files
// in a few processes only: the CI machines have two cores.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    // A cockpit's caches (the backfill's) go to a scratch directory, never the user's.
    env: { CI: 'false', NODE_ENV: 'production', FORCE_COLOR: '0', XDG_CACHE_HOME: join(tmpdir(), 'awrl-test-cache') },
  },
});
