// `awrl-tui` (the cockpit) and `awrl-tui watch RUN` share one flow (src/cli/cockpit-flow.ts): the
// splash first, targets connected behind it, then the cockpit; every way out leaves the terminal
// restored with one clear line. Driven in a real tmux (they need a terminal), and without one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { TmuxSession } from '../harness/tmux.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'awrl-cockpit-flow-'));
// Nothing listens on port 1: connecting is refused at once.
const UNREACHABLE = 'nobody@127.0.0.1:1';
const targetsFile = join(dir, 'targets.yaml');
writeFileSync(
  targetsFile,
  `targets:\n  here:\n    host: local\n    workdir: ${dir}\n  gone:\n    host: ${UNREACHABLE}\n    workdir: /tmp\n`,
);

let sessions: TmuxSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.map((s) => s.kill()));
  sessions = [];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Start the command in tmux; the pane stays after it exits and shows its exit status. */
async function start(args: string, env: Record<string, string> = {}): Promise<TmuxSession> {
  const vars = Object.entries({ AWRL_TARGETS_FILE: join(dir, 'none.yaml'), ...env })
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const t = await TmuxSession.start({
    command: `sh -c '${vars} node ${BIN} ${args}; echo EXITED=$?; exec sleep 600'`,
    width: 110,
    height: 30,
  });
  sessions.push(t);
  return t;
}

async function exitedWith(t: TmuxSession, code: number): Promise<string> {
  const s = await t.waitForScreen((x) => /EXITED=\d+/.test(x), 'the command to exit', 30_000);
  expect(s).toContain(`EXITED=${code}`);
  expect(await t.display('#{alternate_on}')).toBe('0');
  expect(s).not.toMatch(/\n\s+at /); // no stack trace
  return s;
}

describe('the cockpit: connect behind the splash, then open', () => {
  it('opens with the targets it reached; says which it could not once the terminal is back', async () => {
    const t = await start('', { AWRL_TARGETS_FILE: targetsFile });
    const runs = await t.waitForScreen(
      (s) => /here\s+connected/.test(s),
      'the Runs screen with the reachable target',
      30_000,
    );
    expect(runs).toMatch(/^ 1 Runs/);
    expect(runs).not.toContain('awrl-tui: gone');
    await t.type('q');
    const after = await exitedWith(t, 0);
    expect(after).toContain('awrl-tui: gone: cannot reach nobody@127.0.0.1:1');
  });
  it('no target reachable: the cockpit stays open on Runs with the problem and r; q: one line, exit 4', async () => {
    const t = await start(`--target ${UNREACHABLE} --workdir /tmp`);
    const runs = await t.waitForScreen(
      (x) => x.includes('cannot reach') && /^ 1 Runs/.test(x),
      'the Runs screen with the problem',
      30_000,
    );
    expect(runs).toMatch(/\br\b.*(connect|again|retry)/i);
    await t.type('r');
    await t.waitForScreen((x) => /connecting|cannot reach/.test(x), 'the retry', 30_000);
    await t.type('q');
    const s = await exitedWith(t, 4);
    expect(s).toMatch(/awrl-tui: nobody@127\.0\.0\.1:1: cannot reach/);
  });
  it('a bad target: one line, exit 2', async () => {
    const t = await start('--target local');
    expect(await exitedWith(t, 2)).toContain("awrl-tui: target 'local' has no workdir");
  });
});

describe('watch RUN: the same flow, on the dashboard', () => {
  it('opens the dashboard of the run asked for', async () => {
    const t = await start(`watch r-missing --target local --workdir ${dir}`);
    const s = await t.waitForScreen(
      (x) => x.includes('run r-missing not found on local'),
      'the dashboard looking for the run',
      30_000,
    );
    expect(s).toMatch(/^ 1 Runs/);
    await t.type('q');
    await exitedWith(t, 0);
  });
  it('no target to look on: one line, exit 2, terminal restored', async () => {
    const t = await start('watch r1');
    expect(await exitedWith(t, 2)).toContain('awrl-tui: no target to look for r1 on: give --target T');
  });
  it('no target reachable: exit 4', async () => {
    const t = await start(`watch r1 --target ${UNREACHABLE} --workdir /tmp`);
    expect(await exitedWith(t, 4)).toContain('awrl-tui: cannot connect: nobody@127.0.0.1:1');
  });
});

describe('without a terminal', () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  it('the cockpit and watch say what to use instead, exit 2', () => {
    const cockpit = cli(['--target', 'local']);
    expect(cockpit.status).toBe(2);
    expect(cockpit.stderr).toMatch(/^awrl-tui: the cockpit needs/);
    const watch = cli(['watch', 'r1']);
    expect(watch.status).toBe(2);
    expect(watch.stderr).toMatch(
      /^awrl-tui: 'watch' needs .*For r1's state, step and reward without one: 'awrl-tui runs --target T'\./,
    );
    expect(cli(['watch']).stderr).toContain('usage: awrl-tui watch RUN [--target T]');
  });
});
