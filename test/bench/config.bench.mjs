// `awrl-tui config check` of the reference config: whole process (node start, lazy import,
// read, evaluate, print), median of several runs; and evaluateConfig alone, in process.
// Prints figures; asserts nothing (timings depend on the machine).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { evaluateConfig } from '../../dist/config/index.js';

const BIN = fileURLToPath(new URL('../../bin/awrl-tui.js', import.meta.url));
const REF = fileURLToPath(new URL('../fixtures/shared/reference/config_8x8h100_grpo_inst_nokl.yaml', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const RUNS = 9;
const proc = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'config', 'check', REF], { env: { ...process.env, WANDB_API_KEY: 'bench' }, encoding: 'utf8' });
  proc.push(performance.now() - t);
  if (r.status !== 0) {
    console.error(`config check exited ${r.status}: ${r.stdout}${r.stderr}`);
    process.exit(1);
  }
}
const node = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  node.push(performance.now() - t);
}
const text = readFileSync(REF, 'utf8');
const inproc = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  evaluateConfig({ fileName: REF, text, overrides: ['seed=42'], envNames: ['WANDB_API_KEY'] });
  inproc.push(performance.now() - t);
}
console.log(`config check (reference config, whole process): median ${median(proc).toFixed(1)} ms over ${RUNS} runs (min ${Math.min(...proc).toFixed(1)}, max ${Math.max(...proc).toFixed(1)})`);
console.log(`  bare node startup for comparison: median ${median(node).toFixed(1)} ms`);
console.log(`evaluateConfig in process (+1 override): median ${median(inproc).toFixed(2)} ms over 50 runs`);
