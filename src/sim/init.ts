// `awrl-tui sim init DIR`: a directory that looks like an AsyncWebRL checkout from the outside.
//   DIR/webgym/train.py   a few lines of Python that exec node on the simulator (same CLI as the trainer)
//   DIR/bin/nvidia-smi    the fake nvidia-smi, reading the simulator's live state under DIR/state/
//   DIR/bin/ray           the fake ray (a cluster registry under DIR/state/ray, shared by the nodes)
//   DIR/configs/sim_local.yaml  the project's single-node example with fileroot under DIR, wandb off,
//                         actor.path and the datasets pointing at the two entries below
//   DIR/models/Qwen3-VL-8B-Instruct/config.json   a model directory as pre-flight expects one
//   DIR/data/webgym_tasks/{train,test}.jsonl      WebGym-like task files; the simulator takes its
//                         steps per epoch from the train file's line count, as the trainer does
// Paths to node and to the project are absolute and baked in, so the shim works from any shell.
// With DIR/bin on PATH (for the fake nvidia-smi), the checkout passes `awrl-tui preflight`.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument, type Document } from 'yaml';
import { makeDirs } from './make-dirs.js';
import { WEBSITES } from './websites.js';

export interface InitResult {
  dir: string;
  trainPy: string;
  nvidiaSmi: string;
  config: string | null;
  modelDir: string;
  trainDataset: string;
  validDataset: string;
}

/** Tasks in the train file sim init writes: 64 steps per epoch at the example's batch size 32. */
export const SIM_TRAIN_TASKS = 2048;
export const SIM_VALID_TASKS = 256;

/**
 * Writes `count` WebGym-like tasks (one JSON object per line) to `file`. Tests use it to size an
 * epoch: the simulator reads the train file's line count (train_dataset.path) for steps per epoch.
 */
export function writeWebgymTasks(file: string, count: number, split = 'train'): void {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const site = WEBSITES[i % WEBSITES.length];
    lines.push(
      JSON.stringify({
        task_id: `sim-${split}-${i}`,
        website: `https://www.${site}`,
        task: `Simulated task ${i} on ${site}`,
        difficulty: 1 + (i % 3),
      }),
    );
  }
  writeFileSync(file, lines.length ? `${lines.join('\n')}\n` : '');
}

/** A model directory as the trainer and pre-flight expect it: config.json (no weights: the simulator needs none). */
function writeFakeModel(modelDir: string): void {
  makeDirs(modelDir);
  const config = {
    architectures: ['Qwen3VLForConditionalGeneration'],
    model_type: 'qwen3_vl',
    torch_dtype: 'bfloat16',
    // The simulator's checkpoints are a few kB: sized as such, so the disk check holds on any machine.
    num_parameters: 1_000_000,
    _awrl_sim: 'fake model written by `awrl-tui sim init`; the simulated trainer never loads it',
  };
  writeFileSync(join(modelDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
}

const pyStr = (s: string): string => JSON.stringify(s); // a JSON string is a valid Python literal here
const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function trainPyText(nodePath: string, mainJs: string): string {
  return [
    '#!/usr/bin/env python3',
    "# Stand-in for AsyncWebRL's webgym/train.py, written by `awrl-tui sim init`: runs the awrl-tui",
    '# trainer simulator with the same command line (python3 webgym/train.py --config FILE key=value ...).',
    'import os',
    'import sys',
    '',
    'HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))',
    'os.environ.setdefault("AWRL_SIM_HOME", HOME)',
    `os.execv(${pyStr(nodePath)}, [${pyStr(nodePath)}, ${pyStr(mainJs)}] + sys.argv[1:])`,
    '',
  ].join('\n');
}

const dq = (s: string): string => s.replace(/["$`\\]/g, '\\$&');

export function nvidiaSmiText(nodePath: string, smiJs: string, statePath: string, rayDir?: string): string {
  return [
    '#!/bin/sh',
    '# Fake nvidia-smi written by `awrl-tui sim init`: GPUs of the simulated node, memory by trainer phase.',
    `AWRL_SIM_STATE="\${AWRL_SIM_STATE:-${dq(statePath)}}"`,
    'export AWRL_SIM_STATE',
    ...(rayDir ? [`AWRL_SIM_RAY_DIR="\${AWRL_SIM_RAY_DIR:-${dq(rayDir)}}"`, 'export AWRL_SIM_RAY_DIR'] : []),
    `exec ${shQuote(nodePath)} ${shQuote(smiJs)} "$@"`,
    '',
  ].join('\n');
}

/** The fake `ray`: its cluster registry under DIR/state/ray, shared by every node that sees DIR. */
export function rayText(nodePath: string, rayJs: string, rayDir: string): string {
  return [
    '#!/bin/sh',
    '# Fake ray written by `awrl-tui sim init`: start --head/--address [--block], status, list nodes, stop.',
    `AWRL_SIM_RAY_DIR="\${AWRL_SIM_RAY_DIR:-${dq(rayDir)}}"`,
    'export AWRL_SIM_RAY_DIR',
    `exec ${shQuote(nodePath)} ${shQuote(rayJs)} "$@"`,
    '',
  ].join('\n');
}

export interface SimInitOptions {
  /** The demo's config (`awrl-tui --demo`): the example with webgym's test rollout on, so eval rounds
   *  show, and wandb offline, so its banner and `wandb sync` show without an account. */
  demo?: boolean;
}

/** `distDir` is the project's dist/ (where sim/main.js lives); `projectRoot` holds configs/. */
export function simInit(
  dirArg: string,
  distDir: string,
  projectRoot: string,
  nodePath = process.execPath,
  opts: SimInitOptions = {},
): InitResult {
  const dir = resolve(dirArg);
  makeDirs(join(dir, 'webgym'));
  makeDirs(join(dir, 'bin'));
  makeDirs(join(dir, 'state'));
  const trainPy = join(dir, 'webgym', 'train.py');
  writeFileSync(trainPy, trainPyText(nodePath, join(distDir, 'sim', 'main.js')));
  chmodSync(trainPy, 0o755);
  const nvidiaSmi = join(dir, 'bin', 'nvidia-smi');
  const rayDir = join(dir, 'state', 'ray');
  writeFileSync(
    nvidiaSmi,
    nvidiaSmiText(nodePath, join(distDir, 'sim', 'nvidia-smi-main.js'), join(dir, 'state', 'state.json'), rayDir),
  );
  chmodSync(nvidiaSmi, 0o755);
  const ray = join(dir, 'bin', 'ray');
  writeFileSync(ray, rayText(nodePath, join(distDir, 'sim', 'ray-main.js'), rayDir));
  chmodSync(ray, 0o755);
  const modelDir = join(dir, 'models', 'Qwen3-VL-8B-Instruct');
  writeFakeModel(modelDir);
  const dataDir = join(dir, 'data', 'webgym_tasks');
  makeDirs(dataDir);
  const trainDataset = join(dataDir, 'train.jsonl');
  const validDataset = join(dataDir, 'test.jsonl');
  writeWebgymTasks(trainDataset, SIM_TRAIN_TASKS, 'train');
  writeWebgymTasks(validDataset, SIM_VALID_TASKS, 'test');

  let config: string | null = null;
  const example = join(projectRoot, 'configs', 'webgym_1x8_grpo_inst_nokl_local.yaml');
  if (existsSync(example)) {
    const doc = parseDocument(readFileSync(example, 'utf8'));
    doc.setIn(['cluster', 'fileroot'], join(dir, 'areal-fileroot'));
    if (doc.hasIn(['stats_logger', 'wandb', 'mode'])) doc.setIn(['stats_logger', 'wandb', 'mode'], 'disabled');
    doc.setIn(['actor', 'path'], modelDir);
    if (doc.hasIn(['test_rollout', 'base_model_checkpoint']))
      doc.setIn(['test_rollout', 'base_model_checkpoint'], modelDir);
    doc.setIn(['train_dataset', 'path'], trainDataset);
    doc.setIn(['valid_dataset', 'path'], validDataset);
    if (opts.demo) demoSettings(doc);
    makeDirs(join(dir, 'configs'));
    config = join(dir, 'configs', 'sim_local.yaml');
    writeFileSync(config, doc.toString());
  }
  return { dir, trainPy, nvidiaSmi, config, modelDir, trainDataset, validDataset };
}

/** The demo's changes to the example (see SimInitOptions.demo), valid by the trainer's rules: the
 *  eval servers' GPUs come out of the rollout side, so allocation plus test GPUs stay the node's 8. */
function demoSettings(doc: Document): void {
  doc.setIn(['allocation_mode'], 'sglang[rollout]:d2+fsdp[actor]:d4');
  doc.setIn(['test_rollout', 'enabled'], true);
  doc.setIn(['test_rollout', 'n_gpus'], 2);
  doc.setIn(['stats_logger', 'wandb', 'mode'], 'offline');
  doc.commentBefore =
    `${doc.commentBefore ?? ''}\n awrl-tui --demo: test_rollout on (2 GPUs, taken from the rollout side) so eval ` +
    'rounds show; wandb offline (no account needed) so its banner and the `wandb sync` command show.';
}
