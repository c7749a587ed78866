// Subcommand help a new user reads instead of the long --help: `--launch --help` and `preflight --help`
// said only "--forward-env NAME  environment variable to forward to the trainer", not that it ADDS to
// what the config needs, and never named --no-forward-env (the one way to narrow it); `--demo --help`
// called --sim-speed "a factor", so `--sim-speed 5` (read as 5x faster) ran 30 times slower.
import { describe, expect, it } from 'vitest';
import { startCli } from '../runs/cli-process.js';

async function help(args: string[]): Promise<string> {
  const p = startCli(args, {});
  expect(await p.done, p.stderr).toBe(0);
  return p.stdout.replace(/\s+/g, ' ');
}

describe('subcommand help', { timeout: 60_000 }, () => {
  it.each([[['--launch', '--help']], [['preflight', '--help']]])(
    '%j: --forward-env adds, --no-forward-env narrows',
    async (args) => {
      const text = await help(args);
      expect(text).toContain('besides what the config needs');
      expect(text).toContain('--no-forward-env NAME');
    },
  );
  it('--demo --help says what the --sim-speed number is and its default', async () => {
    const text = await help(['--demo', '--help']);
    expect(text).toMatch(/--sim-speed X .*trainer seconds per real second.*default 150/);
  });
  it('parse --help names the exit 2 of a file that is no trainer log', async () => {
    const text = await help(['parse', '--help']);
    expect(text).toContain('holds no trainer record');
  });
});
