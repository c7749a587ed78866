// Runs on the local transport (real bash, real detached process groups): launch latency, `runs`
// latency with many run directories, follow throughput through followRun, and stop latency.
// Figures are printed, not asserted.
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../dist/remote/index.js';
import { launchRun, listRuns, stopRun, followRun, serializeRunRecord } from '../../dist/runs/index.js';

const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-launch-'));
const t = await openTransport('local', { followPollMs: 20 });
const target = {
  name: 'local',
  host: 'local',
  workdir: dir,
  python: 'python3',
  backend: 'direct',
  slurm: { extraArgs: [] },
};
const ms = (t0) => (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1);

// A trainer that prints N step records as fast as it can, then sleeps until stopped.
const STEPS = 2000;
mkdirSync(join(dir, 'webgym'));
writeFileSync(
  join(dir, 'webgym', 'train.py'),
  `
import sys, time
H = '\\x1b[37m(AReaL)\\x1b[0m 20260525-12:00:00.000 StatsLogger INFO: '
out = []
for g in range(1, ${STEPS} + 1):
    out.append(H + f'Epoch 1/1 Step {g}/${STEPS} Train step {g}/${STEPS} done.')
    out.append(H + 'Stats (1/1):')
    out.append(H + '\\n' + '\\n'.join(['╒' + '═' * 60 + '╕'] + [f'│ key/{i:<20} │ {g / 7:.4e} │ other/{i:<20} │ {i / 3:.4e} │' for i in range(50)] + ['╘' + '═' * 60 + '╛']))
sys.stdout.write('\\n'.join(out) + '\\n'); sys.stdout.flush()
time.sleep(600)
`,
);

const plan = {
  target,
  configText: 'experiment_name: b\ntrial_name: t\n',
  experiment: 'b',
  trial: 't',
  trainerArgv: (cfg) => ['python3', 'webgym/train.py', '--config', cfg],
  secretNames: [],
  nodes: 1,
};
let t0 = process.hrtime.bigint();
const res = await launchRun(plan, t, { env: {} });
console.log(`launch (direct, local): ${ms(t0)} ms`);

t0 = process.hrtime.bigint();
let steps = 0;
const f = followRun(t, res.logPath, {
  onEvent: (e) => {
    if (e.type === 'step') steps++;
  },
});
while (steps < STEPS) await new Promise((r) => setTimeout(r, 5));
const followMs = Number(process.hrtime.bigint() - t0) / 1e6;
console.log(
  `follow: ${STEPS} steps x 200 keys (${(f.offset / 1e6).toFixed(1)} MB) in ${followMs.toFixed(0)} ms = ${(f.offset / 1e6 / (followMs / 1000)).toFixed(1)} MB/s`,
);
f.close();

// 300 more run directories, as after months of use.
for (let i = 0; i < 300; i++) {
  const runDir = join(dir, '.awrl', 'runs', `old-${i}`);
  mkdirSync(runDir, { recursive: true });
  writeFileSync(
    join(runDir, 'run.json'),
    serializeRunRecord({
      ...res.record,
      runId: `old-${i}`,
      runDir,
      attempts: [{ n: 1, reason: 'launch', startedAt: 'x', pid: 999999 }],
    }),
  );
  writeFileSync(join(runDir, 'stdout.log'), '');
}
t0 = process.hrtime.bigint();
const runs = await listRuns(t, target);
console.log(`runs: ${runs.length} runs (one with a 256 KiB tail parsed) in ${ms(t0)} ms`);
t0 = process.hrtime.bigint();
const chained = await listRuns(t, target, { chain: true });
console.log(`runs with their attempt chains (what \`awrl-tui runs\` asks for): ${chained.length} runs in ${ms(t0)} ms`);

t0 = process.hrtime.bigint();
const report = await stopRun(t, target, res.record.runId, { graceSeconds: 5 });
console.log(
  `stop: SIGTERM to ${report.terminated.join(',')}, swept ${report.swept.length}, left ${report.left.length}, in ${ms(t0)} ms`,
);
await t.close();
rmSync(dir, { recursive: true, force: true });
