// `awrl-tui COMMAND --help` / `-h` prints that command's usage and exits 0 (issue #19 item 8: it
// used to say `unknown option`), through the built CLI as a user runs it. Each command's first
// synopsis line is the one `awrl-tui --help` lists, so the two cannot drift apart.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { COMMAND_HELP } from '../../src/cli/command-help.js';
import { HELP } from '../../src/cli/help.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const cli = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

// The words as a user types them, with the first line each must print.
const CASES: [string[], string][] = [
  [['runs', '--help'], 'usage: awrl-tui runs [RUN] --target T [--json]'],
  [['stop', '-h'], 'usage: awrl-tui stop RUN [--target T] [--grace S] [--yes] [--check-nodes H1,H2] [--json]'],
  [['follow', '--help'], 'usage: awrl-tui follow RUN --target T [--json] [--reconnect-timeout S]'],
  [
    ['--launch', '--help'],
    'usage: awrl-tui --launch --target T --config FILE [OVERRIDE...] [--follow] [--json] [--force]',
  ],
  [['compare', '--help'], 'usage: awrl-tui compare A B [--target T] [--json] [--md] [--smooth W] [--keys K,...]'],
  [['parse', '--help'], 'usage: awrl-tui parse FILE... [--json]'],
  [['config', '--help'], 'usage: awrl-tui config check FILE [OVERRIDE...] [--json]'],
  [
    ['preflight', '--help'],
    'usage: awrl-tui preflight --target T --config FILE [OVERRIDE...] [--json] [--accept-new-host-key]',
  ],
  [['watch', '--help'], 'usage: awrl-tui watch RUN [--target T] [--check-nodes H1,H2]'],
  [['--demo', '-h'], 'usage: awrl-tui --demo [--keep] [--sim-speed X] [--fault SPEC]'],
  [['sim', '--help'], 'usage: awrl-tui sim init DIR'],
  [['sentinel', '--help'], 'usage: awrl-tui sentinel start|stop|status RUN --target T [--notify URL]... [--json]'],
  [['episodes', '--help'], 'usage: awrl-tui episodes RUN --target T [--version V] [--task ID] [--json]'],
  // Help wins wherever it stands, whatever else was typed (a run id, a target, --json).
  [['stop', 'some-run', '--target', 'local', '--json', '--help'], 'usage: awrl-tui stop RUN'],
  [['--launch', '--target', 'local', '--config', 'x.yaml', '-h'], 'usage: awrl-tui --launch'],
  [['config', 'show', 'x.yaml', '--help'], 'usage: awrl-tui config check'],
];

describe('COMMAND --help', () => {
  it.each(CASES)('%j prints its usage on stdout, exit 0, nothing on stderr', (args, first) => {
    const r = cli(args);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[0].startsWith(first)).toBe(true);
    expect(r.stdout).not.toMatch(/unknown option/);
    expect(r.stdout.endsWith('\n')).toBe(true);
  });

  it('the cockpit words with --help print the whole help; an unknown command is still refused', () => {
    const r = cli(['--target', 'local', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout.trimEnd()).toBe(HELP.trimEnd());
    const bad = cli(['frobnicate', '--help']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown command 'frobnicate'/);
  });

  it('every command in the main help has its own usage, whose synopsis the main help lists', () => {
    const main = squash(HELP);
    for (const [word, text] of Object.entries(COMMAND_HELP)) {
      const synopsis = squash(
        text
          .split('\n\n')[0]
          .replace(/^usage: /, '')
          .replace(/\n\s*awrl-tui /g, '\nawrl-tui '),
      ).split(' awrl-tui ');
      for (const s of synopsis) expect(main, `${word}: ${s}`).toContain(s.startsWith('awrl-tui') ? s : `awrl-tui ${s}`);
    }
    expect(Object.keys(COMMAND_HELP).sort()).toEqual([
      '--demo',
      '--launch',
      'alerts',
      'compare',
      'config',
      'episodes',
      'follow',
      'notify',
      'parse',
      'preflight',
      'runs',
      'sentinel',
      'sim',
      'stop',
      'watch',
    ]);
  });

  it('parse --help and the JSON commands document the stats values (nan, inf, -inf as JSON strings)', () => {
    for (const word of ['parse', 'follow', '--launch'])
      expect(squash(COMMAND_HELP[word])).toContain('a non-finite value is the JSON string "nan", "inf" or "-inf"');
  });

  it('no line of any usage is wider than 110 columns', () => {
    for (const text of Object.values(COMMAND_HELP))
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(110);
  });
});
