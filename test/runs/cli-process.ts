// Running `bin/awrl-tui.js` as a user would, for the CLI tests (needs dist/ built).
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
