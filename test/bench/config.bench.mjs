// `awrl-tui config check` of the reference config: whole process (node start, lazy import,
// read, evaluate, print), median of several runs; and evaluateConfig alone, in process.
// Prints figures; asserts nothing (timings depend on the machine).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evaluateConfig } from '../../dist/config/index.js';

const BIN = fileURLToPath(new URL('../../bin/awrl-tui.js', import.meta.url));
const REF = fileURLToPath(new URL('../fixtures/shared/reference/config_8x8h100_grpo_inst_nokl.yaml', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const RUNS = 9;
const proc = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  const r = spawnSync(process.execPath, [BIN, 'config', 'check', REF], {
    env: { ...process.env, WANDB_API_KEY: 'bench' },
    encoding: 'utf8',
  });
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
console.log(
  `config check (reference config, whole process): median ${median(proc).toFixed(1)} ms over ${RUNS} runs (min ${Math.min(...proc).toFixed(1)}, max ${Math.max(...proc).toFixed(1)})`,
);
console.log(`  bare node startup for comparison: median ${median(node).toFixed(1)} ms`);
console.log(`evaluateConfig in process (+1 override): median ${median(inproc).toFixed(2)} ms over 50 runs`);

// Hostile input (#17): a 1 KB alias bomb and a list at the value limit; refused or read in bounded
// time and memory (the whole process: wall time and peak RSS from /usr/bin/time when present).
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-'));
try {
  const bomb = [
    'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
    ...Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
  ].join('\n');
  const cases = [
    ['1 KB alias bomb', bomb],
    ['99,000-value list', `webgym:\n  big: [${Array(99_000).fill('1').join(',')}]\n`],
    ['29 MB list', `webgym:\n  big:\n${'    - item_0000\n'.repeat(1_800_000)}`],
  ];
  for (const [name, body] of cases) {
    const f = join(dir, 'hostile.yaml');
    writeFileSync(f, body);
    const timed = existsSync('/usr/bin/time');
    const t = performance.now();
    const r = timed
      ? spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, BIN, 'config', 'check', f], { encoding: 'utf8' })
      : spawnSync(process.execPath, [BIN, 'config', 'check', f], { encoding: 'utf8' });
    const ms = performance.now() - t;
    const rss = timed ? Number(r.stderr.trim().split('\n').pop()) / 1024 : NaN;
    console.log(
      `config check of a ${name}: ${ms.toFixed(0)} ms, peak RSS ${Number.isNaN(rss) ? 'not measured' : `${rss.toFixed(0)} MB`}, exit ${r.status}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
