// The pure parts of --json errors: when JSON was asked for, what an error becomes, and which code a
// connection failure's kind gets (test/remote/connect-kinds.test.ts makes each kind for real).
import { describe, it, expect } from 'vitest';
import { jsonErrorOf, wantsJson } from '../../src/cli/json-errors.js';
import { cliErrorFromConnect, connectErrorCode, runErrorCode } from '../../src/cli/run-errors.js';
import { ConnectError } from '../../src/runs/cli-target.js';
import { CONNECT_FAILURE_KINDS } from '../../src/remote/connect-failure.js';
import { RunError, collectSecrets, stopRun, type Target } from '../../src/runs/index.js';
import { CliError, ERROR_CODES, EXIT } from '../../src/cli/errors.js';
import { EXIT_TABLE } from '../../src/cli/exit-table.js';

describe('--json errors', () => {
  it('is asked for by --json before any `--`', () => {
    expect(wantsJson(['runs', '--json'])).toBe(true);
    expect(wantsJson(['runs'])).toBe(false);
    expect(wantsJson(['--', '--json'])).toBe(false);
  });

  it('a CliError keeps its exit code, code and hint; anything else is an internal error without its stack', () => {
    expect(
      jsonErrorOf(new CliError('no run x on h', EXIT.usage, { code: 'run-not-found', hint: 'list them' })),
    ).toEqual({
      type: 'cli-error',
      exit: 2,
      code: 'run-not-found',
      message: 'no run x on h',
      hint: 'list them',
    });
    expect(jsonErrorOf(new CliError('lost it', EXIT.disconnected))).toMatchObject({
      exit: 4,
      code: 'host-unreachable',
      hint: '',
    });
    const bug = jsonErrorOf(new TypeError('x is undefined'));
    expect(bug).toMatchObject({ exit: 70, code: 'internal', message: 'internal error: x is undefined' });
    expect(JSON.stringify(bug)).not.toMatch(/\bat /);
  });

  it('names connection failures by their kind, with the codes scripts already branch on', () => {
    const code = (kind: (typeof CONNECT_FAILURE_KINDS)[number]) => connectErrorCode(kind).code;
    expect(Object.fromEntries(CONNECT_FAILURE_KINDS.map((k) => [k, code(k)]))).toEqual({
      unreachable: 'host-unreachable',
      timeout: 'host-unreachable',
      closed: 'host-unreachable',
      'handshake-failed': 'host-unreachable',
      'host-key-unknown': 'host-key-unknown',
      'host-key-mismatch': 'host-key-mismatch',
      'host-key-revoked': 'host-key-mismatch',
      'auth-failed': 'auth-failed',
      'key-encrypted': 'auth-failed',
      'wrong-passphrase': 'auth-failed',
      'login-needs-person': 'login-needs-person',
      'ssh-settings': 'connect-failed',
    });
    for (const k of CONNECT_FAILURE_KINDS) expect(connectErrorCode(k).hint).not.toBe('');
    // The kind decides, whatever the message says.
    const e = cliErrorFromConnect(
      new ConnectError('cannot connect to h: authentication to u@h failed', 'host-key-unknown'),
    );
    expect(e).toMatchObject({
      exitCode: 2,
      code: 'host-key-unknown',
      message: 'cannot connect to h: authentication to u@h failed',
    });
    expect(cliErrorFromConnect(new ConnectError('cannot connect to h: x', 'timeout'))).toMatchObject({
      exitCode: 4,
      code: 'host-unreachable',
    });
    // Something connect() did not name is a host not reached: retrying may help.
    expect(cliErrorFromConnect(new Error('odd'))).toMatchObject({
      exitCode: 4,
      code: 'host-unreachable',
      message: 'odd',
    });
    expect(cliErrorFromConnect(new ConnectError('m', 'auth-failed'), 'could not search h for it (m)')).toMatchObject({
      exitCode: 2,
      code: 'auth-failed',
      message: 'could not search h for it (m)',
    });
  });

  it('names src/runs refusals by the kind they are thrown with, else by the exit code', async () => {
    const thrown = (f: () => unknown): RunError => {
      try {
        f();
      } catch (e) {
        if (e instanceof RunError) return e;
      }
      throw new Error('no RunError');
    };
    expect(runErrorCode(thrown(() => collectSecrets(['CPU_CLUSTER_TOKEN'], {})))).toBe('secret-missing');
    expect(runErrorCode(thrown(() => collectSecrets(['BAD-NAME'], { 'BAD-NAME': 'x' })))).toBe('secret-missing');
    expect(runErrorCode(thrown(() => collectSecrets(['T'], { T: 'a\nb' })))).toBe('secret-missing');
    const target = {
      name: 'h',
      host: 'h',
      workdir: '/w',
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    } as Target;
    const notAnId = await stopRun(null as never, target, '../etc').catch((e: RunError) => e);
    expect(runErrorCode(notAnId as RunError)).toBe('usage');
    expect(runErrorCode(new RunError('no run r1 on h', 2, 'run-not-found'))).toBe('run-not-found');
    expect(runErrorCode(new RunError('sbatch failed on h: no partition', 1))).toBe('remote-failed');
    expect(runErrorCode(new RunError('something new', 2))).toBe('usage');
  });

  it('the exit table only uses documented exit codes and error codes', () => {
    const exits = new Set<number>(Object.values(EXIT));
    for (const row of EXIT_TABLE) {
      for (const code of row.codes) expect(ERROR_CODES).toContain(code);
      for (const v of Object.values(row.exits))
        for (const n of String(v).split('/')) expect(exits.has(Number(n)), `${row.failure}: ${v}`).toBe(true);
    }
  });
});
