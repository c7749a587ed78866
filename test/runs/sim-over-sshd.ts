// A simulated AsyncWebRL checkout behind a real sshd: what the headless CLI tests launch runs on.
// 256 training tasks make 8 steps per epoch at the sim config's batch of 32.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli-process.js';
import { simInit, writeWebgymTasks } from '../../src/sim/init.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';

export interface SimOverSshd<S extends SshdHandle = SshdHandle> {
  sshd: S;
  workdir: string;
  /** The sim checkout's config file. */
  config: string;
  /** Target flags for the CLI; the checkout's bin/ (its fake nvidia-smi) on PATH so pre-flight passes,
   *  plus `setup` (e.g. `AWRL_SIM_SPEED=instant`). */
  target(setup?: string): string[];
  /** Stops the sshd and removes the checkout. */
  stop(): Promise<void>;
}

/** `start`: another sshd (e.g. one that asks for a second factor, test/harness/sshd-totp.ts). */
export async function startSimOverSshd<S extends SshdHandle = SshdHandle>(
  prefix: string,
  start: () => Promise<S> = startSshd as () => Promise<S>,
): Promise<SimOverSshd<S>> {
  const sshd = await start();
  const workdir = mkdtempSync(join(tmpdir(), prefix));
  const sim = simInit(workdir, join(ROOT, 'dist'), ROOT);
  writeWebgymTasks(sim.trainDataset, 256);
  return {
    sshd,
    workdir,
    config: sim.config!,
    target: (setup = '') => [
      '--target',
      sshd.alias,
      '-F',
      sshd.sshConfigFile,
      '--workdir',
      workdir,
      '--setup',
      `export PATH=${workdir}/bin:$PATH ${setup}`.trim(),
    ],
    stop: async () => {
      await sshd.stop();
      rmSync(workdir, { recursive: true, force: true });
    },
  };
}
