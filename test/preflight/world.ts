// A small target world on this machine for preflight integration tests: an AsyncWebRL-like checkout,
// a model directory, WebGym datasets, a fileroot and a fake nvidia-smi (in test/preflight/fixtures)
// answering from files, all under one temp dir. The target is reached over the real sshd harness.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

// AWRL_TUI_BIN: run another build of the command (e.g. a patched copy) under the same tests.
export const BIN = process.env.AWRL_TUI_BIN ?? new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
export const CONFIG = new URL('../../configs/webgym_1x8_grpo_inst_nokl_local.yaml', import.meta.url).pathname;
const FAKE_SMI_DIR = new URL('./fixtures', import.meta.url).pathname;

export interface World {
  dir: string;
  workdir: string;
  model: string;
  train: string;
  valid: string;
  fileroot: string;
  smi: string;
  /** Setup line for the target: puts the fake nvidia-smi first on PATH. */
  setup: string;
  overrides: string[];
  setGpus(rows: string[]): void;
  setApps(rows: string[]): void;
  remove(): void;
}

export function makeWorld(): World {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-preflight-'));
  const workdir = join(dir, 'webgym-checkout');
  mkdirSync(join(workdir, 'webgym'), { recursive: true });
  writeFileSync(join(workdir, 'webgym', 'train.py'), '# stand-in\n');
  const model = join(dir, 'models', 'Qwen3-VL-8B-Instruct');
  mkdirSync(model, { recursive: true });
  writeFileSync(
    join(model, 'config.json'),
    JSON.stringify({ architectures: ['Qwen3VLForConditionalGeneration'], torch_dtype: 'bfloat16' }),
  );
  const data = join(dir, 'webgym_tasks');
  mkdirSync(data);
  const train = join(data, 'train.jsonl');
  const valid = join(data, 'test.jsonl');
  writeFileSync(train, Array.from({ length: 300 }, (_, i) => `{"task_id":"webgym_${i}"}\n`).join(''));
  writeFileSync(valid, Array.from({ length: 64 }, (_, i) => `{"task_id":"webgym_t${i}"}\n`).join(''));
  const fileroot = join(dir, 'fileroot');
  mkdirSync(fileroot);
  const smi = join(dir, 'smi');
  mkdirSync(smi);
  const w: World = {
    dir,
    workdir,
    model,
    train,
    valid,
    fileroot,
    smi,
    setup: `export PATH='${FAKE_SMI_DIR}':"$PATH" AWRL_FAKE_SMI_DIR='${smi}'`,
    overrides: [
      `cluster.fileroot=${fileroot}`,
      `actor.path=${model}`,
      `train_dataset.path=${train}`,
      `valid_dataset.path=${valid}`,
      'experiment_name=pfexp',
      'trial_name=pftrial',
    ],
    setGpus(rows) {
      writeFileSync(join(smi, 'gpus.csv'), rows.join('\n') + '\n');
    },
    setApps(rows) {
      writeFileSync(join(smi, 'apps.csv'), rows.length ? rows.join('\n') + '\n' : '');
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  w.setGpus(
    Array.from(
      { length: 8 },
      (_, i) => `${i}, GPU-${i}0000000-1111-2222-3333-444444444444, NVIDIA H100 80GB HBM3, 4, 81559`,
    ),
  );
  w.setApps([]);
  return w;
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

export function preflight(args: string[], env: Record<string, string>, dir: string): CliRun {
  const r = spawnSync(process.execPath, [BIN, 'preflight', ...args], {
    encoding: 'utf8',
    timeout: 90_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg'), ...env },
  });
  let json: any = null;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = null;
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}
