// Running `bin/awrl-tui.js` as a user would, for the CLI tests (needs dist/ built).
import { expect } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';

export const ROOT = dirname(dirname(dirname(new URL(import.meta.url).pathname)));
const BIN = join(ROOT, 'bin', 'awrl-tui.js');

export interface CliProcess {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  done: Promise<number | null>;
}

/** Starts the CLI with `env` added and no targets.yaml profiles; output accumulates on the object. */
export function startCli(args: string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env, XDG_CONFIG_HOME: join(tmpdir(), 'awrl-no-profiles') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p: CliProcess = { child, stdout: '', stderr: '', done: Promise.resolve(null) };
  child.stdout!.on('data', (b) => (p.stdout += b));
  child.stderr!.on('data', (b) => (p.stderr += b));
  p.done = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  return p;
}

/** The CLI with a secret in its environment (the Omniboxes token variable the sim config names):
 *  `start` begins a command (`extra`: more environment), `cli` runs one to its end and checks that
 *  neither the secret nor any of `hidden` (a notification URL's token) shows in its output, `ok`
 *  also that it exits 0 and gives its stdout; `killAll` ends what is still running. */
export function sentinelCli(secret: string, hidden: readonly string[] = []) {
  const started: CliProcess[] = [];
  const start = (args: string[], extra: Record<string, string> = {}): CliProcess => {
    const p = startCli(args, { CPU_CLUSTER_TOKEN: secret, ...extra });
    started.push(p);
    return p;
  };
  /** SIGKILLs every process `start` began that is still running (by PID): for afterAll. */
  const killAll = (): void => {
    for (const p of started)
      if (p.child.pid && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  };
  const cli = async (
    args: string[],
    extra: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const p = start(args, extra);
    const code = await p.done;
    for (const s of [secret, ...hidden]) expect(p.stdout + p.stderr).not.toContain(s);
    return { code, stdout: p.stdout, stderr: p.stderr };
  };
  const ok = async (args: string[], extra: Record<string, string> = {}): Promise<string> => {
    const r = await cli(args, extra);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };
  return { start, cli, ok, killAll };
}
