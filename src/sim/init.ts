// `awrl-tui sim init DIR`: a directory that looks like an AsyncWebRL checkout from the outside.
//   DIR/webgym/train.py   a few lines of Python that exec node on the simulator (same CLI as the trainer)
//   DIR/bin/nvidia-smi    the fake nvidia-smi, reading the simulator's live state under DIR/state/
//   DIR/configs/sim_local.yaml  the project's single-node example with fileroot under DIR, wandb off
// Paths to node and to the project are absolute and baked in, so the shim works from any shell.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';

export interface InitResult {
  dir: string;
  trainPy: string;
  nvidiaSmi: string;
  config: string | null;
}

const pyStr = (s: string): string => JSON.stringify(s); // a JSON string is a valid Python literal here
const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function trainPyText(nodePath: string, mainJs: string): string {
  return [
    '#!/usr/bin/env python3',
    '# Stand-in for AsyncWebRL\'s webgym/train.py, written by `awrl-tui sim init`: runs the awrl-tui',
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

export function nvidiaSmiText(nodePath: string, smiJs: string, statePath: string): string {
  return [
    '#!/bin/sh',
    '# Fake nvidia-smi written by `awrl-tui sim init`: GPUs of the simulated node, memory by trainer phase.',
    `AWRL_SIM_STATE="\${AWRL_SIM_STATE:-${statePath.replace(/["$`\\]/g, '\\$&')}}"`,
    'export AWRL_SIM_STATE',
    `exec ${shQuote(nodePath)} ${shQuote(smiJs)} "$@"`,
    '',
  ].join('\n');
}

/** `distDir` is the project's dist/ (where sim/main.js lives); `projectRoot` holds configs/. */
export function simInit(dirArg: string, distDir: string, projectRoot: string, nodePath = process.execPath): InitResult {
  const dir = resolve(dirArg);
  mkdirSync(join(dir, 'webgym'), { recursive: true });
  mkdirSync(join(dir, 'bin'), { recursive: true });
  mkdirSync(join(dir, 'state'), { recursive: true });
  const trainPy = join(dir, 'webgym', 'train.py');
  writeFileSync(trainPy, trainPyText(nodePath, join(distDir, 'sim', 'main.js')));
  chmodSync(trainPy, 0o755);
  const nvidiaSmi = join(dir, 'bin', 'nvidia-smi');
  writeFileSync(nvidiaSmi, nvidiaSmiText(nodePath, join(distDir, 'sim', 'nvidia-smi-main.js'), join(dir, 'state', 'state.json')));
  chmodSync(nvidiaSmi, 0o755);

  let config: string | null = null;
  const example = join(projectRoot, 'configs', 'webgym_1x8_grpo_inst_nokl_local.yaml');
  if (existsSync(example)) {
    const doc = parseDocument(readFileSync(example, 'utf8'));
    doc.setIn(['cluster', 'fileroot'], join(dir, 'areal-fileroot'));
    if (doc.hasIn(['stats_logger', 'wandb', 'mode'])) doc.setIn(['stats_logger', 'wandb', 'mode'], 'disabled');
    mkdirSync(join(dir, 'configs'), { recursive: true });
    config = join(dir, 'configs', 'sim_local.yaml');
    writeFileSync(config, doc.toString());
  }
  return { dir, trainPy, nvidiaSmi, config };
}
