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
 *  `cli` runs a command to its end and checks the secret never shows in its output; `killAll` ends
 *  what is still running. */
export function sentinelCli(secret: string) {
  const started: CliProcess[] = [];
  const start = (args: string[]): CliProcess => {
    const p = startCli(args, { CPU_CLUSTER_TOKEN: secret });
    started.push(p);
    return p;
  };
  /** SIGKILLs every process `start` began that is still running (by PID): for afterAll. */
  const killAll = (): void => {
    for (const p of started)
      if (p.child.pid && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  };
  const cli = async (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const p = start(args);
    const code = await p.done;
    expect(p.stdout + p.stderr).not.toContain(secret);
    return { code, stdout: p.stdout, stderr: p.stderr };
  };
  return { start, cli, killAll };
}
