// Every cell of --help's exit-code table (src/cli/exit-table.ts), run as the user would: the built
// CLI against a real sshd in front of a simulated checkout. Each failure gives the table's exit
// code, one `awrl-tui: …` line on stderr without a stack trace and, with --json, ONE JSON error line
// on stdout whose code names the failure. A secret in the environment never shows.
// The last three rows (connection lost while following, the run failed/stopped, leftovers after
// stop) need a run going: test/runs/cli-drops.test.ts and cli-ssh.test.ts cover them.
// 'a command missing on the target' needs an sshd whose login PATH lacks GNU stat:
// test/runs/no-gnu-stat.test.ts runs its cells. 'second factor, no terminal': an sshd that asks
// for one (test/remote/second-factor.test.ts). The results of the reading commands: no dumps
// (test/cli/episodes-ssh.test.ts), a channel that refused the test (test/notify/notify-command.test.ts),
// a side's log gone (test/runs/compare-ssh.test.ts).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sentinelCli, startCli } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';
import { EXIT_TABLE, type TableCommand } from '../../src/cli/exit-table.js';
import type { ErrorCode } from '../../src/cli/errors.js';

const SECRET = `exit-sentinel-${process.pid}-Kq2`;
const { cli } = sentinelCli(SECRET);
const RUN = 'nosuch-20260101-000000-abcd';
/** The commands given one RUN id (sorted): --launch's through --resume. */
const READ_ONE_RUN = ['--launch', 'alerts', 'compare', 'episodes', 'follow', 'sentinel', 'stop'];

/** A free port on which nothing listens (taken, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('exit codes and --json errors, by command and failure', () => {
  let env: SimOverSshd;
  let dir: string;
  /** ssh config files whose alias fails in one way each. */
  const cfg: Record<'unreachable' | 'unknownKey' | 'changedKey' | 'badLogin', string> = {
    unreachable: '',
    unknownKey: '',
    changedKey: '',
    badLogin: '',
  };

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-exit-codes-');
    dir = mkdtempSync(join(tmpdir(), 'awrl-exit-ssh-'));
    const base = readFileSync(env.sshd.sshConfigFile, 'utf8');
    const variant = (name: keyof typeof cfg, edit: (s: string) => string) => {
      cfg[name] = join(dir, `ssh_config_${name}`);
      writeFileSync(cfg[name], edit(base));
    };
    const port = await closedPort();
    variant('unreachable', (s) => s.replace(/^(\s*Port) \d+$/m, `$1 ${port}`));
    writeFileSync(join(dir, 'known_hosts_empty'), '');
    variant('unknownKey', (s) => s.replace(/^(\s*UserKnownHostsFile) .*$/m, `$1 ${join(dir, 'known_hosts_empty')}`));
    // Another key recorded for this host and port: what a re-keyed host (or an attacker) looks like.
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'other_host_key')]);
    const otherKey = readFileSync(join(dir, 'other_host_key.pub'), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    writeFileSync(join(dir, 'known_hosts_other'), `[${env.sshd.host}]:${env.sshd.port} ${otherKey}\n`);
    variant('changedKey', (s) => s.replace(/^(\s*UserKnownHostsFile) .*$/m, `$1 ${join(dir, 'known_hosts_other')}`));
    // A key the server does not know.
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'stranger_key')]);
    variant('badLogin', (s) => s.replace(/^(\s*IdentityFile) .*$/m, `$1 ${join(dir, 'stranger_key')}`));
  }, 60_000);
  afterAll(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const good = () => env.target();
  const via = (file: string) => ['--target', env.sshd.alias, '-F', file, '--workdir', env.workdir];

  /** The words for one command against a target, with the config where the command needs one. */
  function words(cmd: TableCommand, target: string[], extra: { config?: string; overrides?: string[] } = {}): string[] {
    const config = extra.config ?? env.config;
    const o = extra.overrides ?? [];
    switch (cmd) {
      case '--launch':
        return ['--launch', ...target, '--config', config, ...o, '++trial_name=exit-codes'];
      case 'runs':
        return ['runs', ...target];
      case 'follow':
        return ['follow', RUN, ...target];
      case 'stop':
        return ['stop', RUN, ...target];
      case 'preflight':
        return ['preflight', ...target, '--config', config, ...o];
      case 'config':
        return ['config', 'show', config, ...o];
      case 'alerts':
        return ['alerts', RUN, ...target];
      case 'episodes':
        return ['episodes', RUN, ...target];
      case 'compare':
        return ['compare', RUN, RUN, ...target];
      case 'sentinel':
        return ['sentinel', 'status', RUN, ...target];
      case 'notify':
        return ['notify', 'test', '--notify', 'json://127.0.0.1:9/hook'];
    }
  }
  /** `notify test` answers in lines, one per channel: it has no --json. */
  const takesJson = (cmd: TableCommand) => cmd !== 'notify';

  type Case = { cmd: TableCommand; args: string[]; codes: ErrorCode[]; exit: number };
  /** The table's row: a case per command it has a number for, built by `args`. */
  function casesOf(failure: string, args: (cmd: TableCommand) => string[] | null): Case[] {
    const row = EXIT_TABLE.find((r) => r.failure === failure)!;
    expect(row, failure).toBeDefined();
    return Object.entries(row.exits).flatMap(([cmd, exit]) => {
      const a = args(cmd as TableCommand);
      return a ? [{ cmd: cmd as TableCommand, args: a, codes: row.codes, exit: Number(exit) }] : [];
    });
  }

  async function check(c: Case): Promise<void> {
    const json = takesJson(c.cmd);
    const r = await cli(json ? [...c.args, '--json'] : c.args);
    const what = `${c.args.join(' ')}\n${r.stderr}`;
    expect(r.code, what).toBe(c.exit);
    expect(r.stderr, what).toMatch(/^awrl-tui: /m);
    expect(r.stderr, what).not.toMatch(/\n\s+at /);
    if (!json) return;
    const lines = r.stdout.trim().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    expect(last, what).toMatchObject({
      type: 'cli-error',
      exit: c.exit,
      message: expect.any(String),
      hint: expect.any(String),
    });
    expect(c.codes, what).toContain(last.code);
    // The human line on stderr says the same thing.
    expect(r.stderr, what).toContain(`awrl-tui: ${last.message.split('\n')[0]}`);
    // The error is the only JSON error line (stdout carries no other).
    expect(lines.filter((l) => l.startsWith('{"type":"cli-error"'))).toHaveLength(1);
  }

  it('bad arguments and unreadable files exit 2 (usage, file-unreadable)', async () => {
    for (const c of casesOf('bad arguments, unreadable file', (cmd) => [...words(cmd, good()), '--no-such-option']))
      await check(c);
    for (const c of casesOf('bad arguments, unreadable file', (cmd) =>
      ['--launch', 'preflight', 'config'].includes(cmd)
        ? words(cmd, good(), { config: join(dir, 'missing.yaml') })
        : null,
    )) {
      await check({ ...c, codes: ['file-unreadable'] });
    }
  }, 60_000);

  it('config errors exit 2 (config-invalid) and touch no target', async () => {
    for (const c of casesOf('config errors', (cmd) =>
      words(cmd, via(cfg.unreachable), { overrides: ['actor.no_such_key=1'] }),
    ))
      await check(c);
  }, 60_000);

  it('an unreachable host exits 4 for every command (host-unreachable), preflight included', async () => {
    for (const c of casesOf('host unreachable', (cmd) => words(cmd, via(cfg.unreachable)))) await check(c);
  }, 60_000);

  it('an unknown or changed host key exits 2 (host-key-unknown, host-key-mismatch)', async () => {
    for (const c of casesOf('host key unknown or changed', (cmd) => words(cmd, via(cfg.unknownKey))))
      await check({ ...c, codes: ['host-key-unknown'] });
    for (const c of casesOf('host key unknown or changed', (cmd) => words(cmd, via(cfg.changedKey))))
      await check({ ...c, codes: ['host-key-mismatch'] });
  }, 90_000);

  it('a refused login exits 2 (auth-failed)', async () => {
    for (const c of casesOf('login refused', (cmd) => words(cmd, via(cfg.badLogin)))) await check(c);
  }, 60_000);

  it('a notification URL that is no channel exits 2 before anything connects', async () => {
    const bogus = ['--notify', 'bogus://x/Tok-9'];
    for (const c of casesOf('a notification URL not understood', (cmd) =>
      cmd === 'notify' ? ['notify', 'test', ...bogus] : [...words(cmd, via(cfg.unreachable)), ...bogus],
    )) {
      await check(c);
      const r = await cli(c.args);
      expect(r.stderr).not.toContain('Tok-9');
    }
  }, 60_000);

  it('an unknown run exits 2 (run-not-found): follow, stop, alerts, episodes, compare, sentinel, --launch --resume', async () => {
    const cases = casesOf('unknown run', (cmd) =>
      cmd === '--launch' ? ['--launch', '--resume', RUN, ...good()] : words(cmd, good()),
    );
    expect(cases.map((c) => c.cmd).sort()).toEqual([...READ_ONE_RUN]);
    for (const c of cases) await check(c);
  }, 60_000);

  it('a --workdir that does not exist exits 2 (workdir-missing), not "no run": every command that reads runs', async () => {
    const missing = ['--target', env.sshd.alias, '-F', env.sshd.sshConfigFile, '--workdir', `${env.workdir}-typo`];
    const cases = casesOf('workdir missing on the target', (cmd) => words(cmd, missing));
    expect(cases.map((c) => c.cmd).sort()).toEqual([...READ_ONE_RUN, 'runs'].sort());
    for (const c of cases) {
      await check(c);
      const r = await cli(c.args);
      expect(r.stderr, c.cmd).toContain(`workdir ${env.workdir}-typo does not exist on ${env.sshd.alias}`);
    }
  }, 90_000);

  it('stop without --target: a run not found where it could look, with a profile unreachable, is 4 (not "no run")', async () => {
    const profiles = join(dir, 'targets.yaml');
    writeFileSync(
      profiles,
      [
        'targets:',
        `  good: { host: ${env.sshd.alias}, ssh_config: ${env.sshd.sshConfigFile}, workdir: ${env.workdir} }`,
        `  gone: { host: ${env.sshd.alias}, ssh_config: ${cfg.unreachable}, workdir: ${env.workdir} }`,
        '',
      ].join('\n'),
    );
    const p = startCli(['stop', RUN], { AWRL_TARGETS_FILE: profiles, CPU_CLUSTER_TOKEN: SECRET });
    expect(await p.done, p.stderr).toBe(4);
    expect(p.stderr).toMatch(new RegExp(`^awrl-tui: no run ${RUN} on good, and could not search gone for it`, 'm'));
    // Reachable everywhere and absent: the plain unknown run.
    writeFileSync(
      profiles,
      [
        'targets:',
        `  good: { host: ${env.sshd.alias}, ssh_config: ${env.sshd.sshConfigFile}, workdir: ${env.workdir} }`,
        '',
      ].join('\n'),
    );
    const q = startCli(['stop', RUN], { AWRL_TARGETS_FILE: profiles, CPU_CLUSTER_TOKEN: SECRET });
    expect(await q.done, q.stderr).toBe(2);
    expect(q.stderr).toContain(`no run ${RUN} on good`);
  }, 60_000);

  it('pre-flight errors exit 2: --launch fails (preflight-failed); preflight answers with "ok":false', async () => {
    const missing = ['actor.path=/nonexistent/model'];
    const [launch, preflight] = casesOf('pre-flight errors', (cmd) => words(cmd, good(), { overrides: missing }));
    await check(launch);
    // The checks are the answer preflight was asked for: a result document, not an error line.
    const r = await cli([...preflight.args, '--json']);
    expect(r.code).toBe(preflight.exit);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      checks: expect.arrayContaining([expect.objectContaining({ result: 'error' })]),
    });
  }, 90_000);
});
