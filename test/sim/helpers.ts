// Runs the simulated trainer in-process (instant pace) in a fresh temp fileroot and collects what it
// wrote: main.log, merged.log, its stdout, and its ground truth.
import { mkdtempSync, readFileSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simMain } from '../../src/sim/main.js';
import type { TruthEvent } from '../../src/sim/truth.js';
import { eventFromJsonLine } from '../../src/trainer-log/index.js';

export const CONFIG_RAY = new URL('../../configs/webgym_8x8h100_grpo_inst_nokl.yaml', import.meta.url).pathname;
export const CONFIG_LOCAL = new URL('../../configs/webgym_1x8_grpo_inst_nokl_local.yaml', import.meta.url).pathname;

export interface SimWorkspace {
  root: string;
  fileroot: string;
  truthPath: string;
  stdout: string;
  stderr: string;
  codes: number[];
  run(extraOverrides?: string[], env?: Record<string, string>): Promise<number>;
  logDir(): string;
  read(name: string): Buffer;
  truth(): TruthEvent[];
  cleanup(): void;
}

export function simWorkspace(
  config: string,
  overrides: string[] = [],
  baseEnv: Record<string, string> = {},
): SimWorkspace {
  const root = mkdtempSync(join(tmpdir(), 'awrl-sim-'));
  const ws: SimWorkspace = {
    root,
    fileroot: join(root, 'fr'),
    truthPath: join(root, 'truth.jsonl'),
    stdout: '',
    stderr: '',
    codes: [],
    async run(extra = [], env = {}) {
      const argv = [
        '--config',
        config,
        `cluster.fileroot=${join(root, 'fr')}`,
        '++stats_logger.wandb.mode=disabled',
        ...overrides,
        ...extra,
      ];
      const code = await simMain(
        argv,
        {
          ...process.env,
          AWRL_SIM_SPEED: 'instant',
          AWRL_SIM_TRUTH: ws.truthPath,
          AWRL_SIM_DATASET_SIZE: '512',
          USER: 'simuser',
          LOGNAME: 'simuser',
          ...baseEnv,
          ...env,
        },
        { stdout: (s) => (ws.stdout += s), stderr: (s) => (ws.stderr += s) },
      );
      ws.codes.push(code);
      return code;
    },
    logDir() {
      const base = join(root, 'fr', 'logs', 'simuser');
      const exp = readdirSync(base)[0];
      return join(base, exp, readdirSync(join(base, exp))[0]);
    },
    read(name) {
      return readFileSync(join(ws.logDir(), name));
    },
    truth() {
      if (!existsSync(ws.truthPath)) return [];
      return readFileSync(ws.truthPath, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => eventFromJsonLine(l) as TruthEvent);
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  return ws;
}
