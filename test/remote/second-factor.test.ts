// A login node that asks for the key and then a one-time code (keyboard-interactive through PAM,
// test/harness/sshd-totp.ts): the code is asked once, where a person is; a reconnect that meets the
// prompt again says "connection needs you to log in again" after ONE attempt (no retry loop that
// could lock the account); with no one to ask, the command fails at once naming keyboard-interactive,
// the server's prompt and the way out, with the exit code of a connection failure.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type LoginQuestion, type Transport } from '../../src/remote/index.js';
import { ConnectFailure } from '../../src/remote/connect-failure.js';
import { startTotpSshd, TOTP_PROMPT, type TotpSshd } from '../harness/sshd-totp.js';
import { descendants } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';
import { TmuxSession } from '../harness/tmux.js';
import { startCli } from '../runs/cli-process.js';
import { BIN } from '../ui/sim-run.js';

describe('a second factor after the key (keyboard-interactive, TOTP through PAM)', () => {
  let s: TotpSshd;
  let dir: string;
  const open: Transport[] = [];
  const sessions: TmuxSession[] = [];
  const partials = (): number => (s.log().match(/Partial publickey for /g) ?? []).length;

  beforeAll(async () => {
    s = await startTotpSshd();
    dir = mkdtempSync(join(tmpdir(), 'awrl-2fa-'));
  });
  afterAll(async () => {
    for (const t of open) await t.close();
    for (const t of sessions) await t.kill();
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks the code once, hidden; a reconnect that needs it again fails after one attempt, said as such; loginAgain asks once', async () => {
    const asked: LoginQuestion[] = [];
    const t = await openTransport(s.alias, {
      sshConfigFile: s.sshConfigFile,
      reconnect: { baseMs: 20, capMs: 50 },
      answerLogin: async (q) => {
        asked.push(q);
        return [s.nextCode()];
      },
    });
    open.push(t);
    expect((await t.exec(['echo', 'in'])).stdout.toString()).toBe('in\n');
    expect(asked).toHaveLength(1);
    expect(asked[0].prompts).toEqual([{ prompt: expect.stringContaining(TOTP_PROMPT), echo: false }]);
    expect(s.secondFactorLogins()).toBe(1);

    const before = partials();
    // The client's connection dies (its sshd session killed): the transport reconnects once.
    for (const pid of descendants(s.pid)) process.kill(pid, 'SIGKILL');
    const failed = await waitFor(() => (t.state.state === 'failed' ? t.state : null), {
      what: 'the transport to give up on the second factor',
    });
    expect(failed.reason).toMatch(/^connection needs you to log in again: /);
    expect(failed.reason).toContain('keyboard-interactive');
    expect(failed.reason).toContain(TOTP_PROMPT);
    expect(asked).toHaveLength(1); // never asked again behind the person's back
    expect(partials() - before).toBe(1); // one attempt, no retry loop
    expect(s.secondFactorLogins()).toBe(1);
    await expect(t.exec(['true'])).rejects.toThrow(/needs you to log in again/);

    // loginAgain (the cockpit's `r`): declined, it stays failed as it was, nothing logged in.
    expect(t.needsLogin).toBe(true);
    await t.loginAgain!(async () => null);
    expect(t.state).toEqual(failed);
    expect(t.needsLogin).toBe(true);
    expect(s.secondFactorLogins()).toBe(1);
    // Answered: one attempt, one more second-factor login, connected.
    const again: LoginQuestion[] = [];
    await t.loginAgain!(async (q) => {
      again.push(q);
      return [s.nextCode()];
    });
    expect(t.state.state).toBe('ready');
    expect(again).toHaveLength(1);
    expect(again[0].prompts[0]).toMatchObject({ prompt: expect.stringContaining(TOTP_PROMPT), echo: false });
    expect((await t.exec(['echo', 'back'])).stdout.toString()).toBe('back\n');
    expect(s.secondFactorLogins()).toBe(2);
    expect(t.needsLogin).toBe(false);
  });

  it('a wrong code is a refused login, said with the prompt; no one to ask fails at once', async () => {
    const wrong = await openTransport(s.alias, {
      sshConfigFile: s.sshConfigFile,
      answerLogin: async () => ['000000'],
    }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ConnectFailure);
    expect((wrong as ConnectFailure).kind).toBe('auth-failed');
    expect((wrong as Error).message).toContain(`refused the answer to its keyboard-interactive prompt`);

    const started = Date.now();
    const nobody = await openTransport(s.alias, { sshConfigFile: s.sshConfigFile }).catch((e: unknown) => e);
    expect(nobody).toBeInstanceOf(ConnectFailure);
    const f = nobody as ConnectFailure;
    expect(f.kind).toBe('login-needs-person');
    expect(f.fatal).toBe(true);
    expect(f.facts.loginPrompt).toContain(TOTP_PROMPT);
    expect(f.message).toMatch(/keyboard-interactive: ".*One-time password/);
    expect(f.message).toContain('ControlMaster');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('headless without a terminal: runs, follow, stop, alerts, episodes, compare, sentinel exit 4 at once with login-needs-person, the prompt and the way out', async () => {
    const target = ['--target', s.alias, '-F', s.sshConfigFile, '--workdir', dir, '--json'];
    const run = 'nosuch-20260101-000000-abcd';
    const logins = s.secondFactorLogins();
    // The exit table's row (src/cli/exit-table.ts) for the commands that need no trainer config.
    const byRun = [
      ['follow', run],
      ['stop', run],
      ['alerts', run],
      ['episodes', run],
      ['compare', run, run],
    ];
    for (const words of [['runs'], ...byRun, ['sentinel', 'status', run]]) {
      // stdin is /dev/null: no terminal.
      const r = startCli([...words, ...target], {});
      expect(await r.done, words[0]).toBe(4);
      const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
      expect(last).toMatchObject({ type: 'cli-error', code: 'login-needs-person', exit: 4 });
      expect(last.message).toContain('keyboard-interactive');
      expect(last.message).toContain(TOTP_PROMPT);
      expect(last.hint).toContain('ControlMaster');
      expect(r.stderr).toMatch(/^awrl-tui: .*no terminal/m);
    }
    expect(s.secondFactorLogins()).toBe(logins); // none of them logged in
  });

  it('headless in a terminal: `runs` asks the code there, hidden, and lists', async () => {
    const t = await TmuxSession.start({
      command: `sh -c 'node ${BIN} runs --target ${s.alias} -F ${s.sshConfigFile} --workdir ${dir}; echo EXITED=$?; exec sleep 600'`,
      width: 120,
      height: 30,
      env: { SSH_AUTH_SOCK: '' },
    });
    sessions.push(t);
    await t.waitForScreen((x) => x.includes(TOTP_PROMPT), 'the code prompt', 30_000);
    const before = s.secondFactorLogins();
    const code = s.nextCode();
    await t.type(code);
    await t.keys('Enter');
    const screen = await t.waitForScreen((x) => x.includes('EXITED='), 'runs to end', 30_000);
    expect(screen).toContain('EXITED=0');
    expect(screen).not.toContain(code);
    expect(s.secondFactorLogins()).toBe(before + 1);
  });

  it('the cockpit asks the code on the terminal, without echo; a reconnect that needs it again is said, and r asks it in a dialog, once', async () => {
    const targets = join(dir, 'targets.yaml');
    writeFileSync(
      targets,
      `targets:\n  twofa:\n    host: ${s.alias}\n    ssh_config: ${s.sshConfigFile}\n    workdir: ${dir}\n`,
    );
    const t = await TmuxSession.start({
      command: `sh -c 'node ${BIN}; echo EXITED=$?; exec sleep 600'`,
      width: 120,
      height: 30,
      env: { AWRL_TARGETS_FILE: targets, SSH_AUTH_SOCK: '' },
    });
    sessions.push(t);
    await t.waitForScreen((x) => x.includes(TOTP_PROMPT), 'the code prompt', 30_000);
    const code = s.nextCode();
    await t.type(code);
    const typed = await t.screen();
    expect(typed).not.toContain(code);
    await t.keys('Enter');
    await t.waitForScreen((x) => /twofa {2}connected/.test(x), 'the Runs screen with twofa connected', 30_000);
    const logins = s.secondFactorLogins();
    // The connection dies (its sshd session killed): the one reconnect meets the code prompt again.
    for (const pid of descendants(s.pid)) process.kill(pid, 'SIGKILL');
    await t.waitForScreen(
      (x) => /twofa {2}connection failed: connection needs you to log in again/.test(x),
      'the Runs screen to say the connection needs a login again',
      30_000,
    );
    expect(await t.screen()).toContain("r logs in again here: the server's prompt opens as a dialog");
    expect(s.secondFactorLogins()).toBe(logins);
    // `r`: the server's prompt in a dialog inside the cockpit, typed unseen, answered once.
    await t.type('r');
    const dialog = await t.waitForScreen(
      (x) => x.includes('Log in to twofa') && x.includes(TOTP_PROMPT),
      'the login dialog with the server prompt',
      30_000,
    );
    expect(dialog).toContain('(what you type is not shown)');
    const again = s.nextCode();
    await t.type(again);
    expect(await t.screen()).not.toContain(again);
    await t.keys('Enter');
    const back = await t.waitForScreen((x) => /twofa {2}connected/.test(x), 'twofa connected again', 30_000);
    expect(back).not.toContain('Log in to twofa');
    expect(s.secondFactorLogins()).toBe(logins + 1);
    await t.type('q');
    await t.waitForScreen((x) => x.includes('EXITED=0'), 'the cockpit to quit');
  });
});
