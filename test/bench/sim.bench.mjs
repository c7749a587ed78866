// Simulator figures: cost of one stats table (tabulate port) and of a whole 160-step run at instant
// pace (the writer's own overhead: records, tables, appends, ground truth). Printed, not asserted.
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tabulateStats } from '../../dist/sim/table.js';
import { statKeys } from '../../dist/sim/keys.js';
import { simMain } from '../../dist/sim/main.js';

const keys = statKeys(true);
const entries = keys.map((k, i) => [k, Math.sin(i) * 10 ** ((i % 9) - 4)]);
let t0 = performance.now();
const N = 2000;
let bytes = 0;
for (let i = 0; i < N; i++) bytes += tabulateStats(entries).length;
let dt = performance.now() - t0;
console.log(
  `stats table (${keys.length} keys): ${((dt / N) * 1000).toFixed(1)} µs/table, ${(bytes / N / 1024).toFixed(1)} KiB/table`,
);

const root = mkdtempSync(join(tmpdir(), 'awrl-simbench-'));
const config = new URL('../../configs/webgym_8x8h100_grpo_inst_nokl.yaml', import.meta.url).pathname;
let out = 0;
t0 = performance.now();
const code = await simMain(
  ['--config', config, `cluster.fileroot=${root}`, '++stats_logger.wandb.mode=disabled'],
  { ...process.env, AWRL_SIM_SPEED: 'instant', AWRL_SIM_TRUTH: join(root, 'truth.jsonl') },
  { stdout: (s) => (out += s.length), stderr: (s) => process.stderr.write(s) },
);
dt = performance.now() - t0;
const logs = join(root, 'logs');
const u = readdirSync(logs)[0];
const e = readdirSync(join(logs, u))[0];
const t = readdirSync(join(logs, u, e))[0];
const mainBytes = statSync(join(logs, u, e, t, 'main.log')).size;
console.log(
  `160-step run, instant pace: exit ${code}, ${(dt / 1000).toFixed(2)} s (${(160 / (dt / 1000)).toFixed(0)} steps/s), main.log ${(mainBytes / 1048576).toFixed(1)} MiB, stdout ${(out / 1e6).toFixed(1)} M chars`,
);
rmSync(root, { recursive: true, force: true });
