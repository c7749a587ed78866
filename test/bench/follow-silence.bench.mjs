// RunWatch (`follow`, the cockpit) attaching to a run hung 3 h ago, over the local transport: how
// long from the start of following until the hang alert, and how long after the last byte was read (the silence is counted
// when reading stands at the size measured: no quiet period to wait for). Prints, asserts nothing.
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../dist/remote/index.js';
import { createRunWatch } from '../../dist/watch/create-run-watch.js';
import { isHangAlert } from '../../dist/health/index.js';

const RUN_A = readFileSync(new URL('../fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url));
const HUNG = RUN_A.subarray(0, RUN_A.lastIndexOf(0x0a, RUN_A.indexOf('RLTrainer ERROR')) + 1);
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-silence-'));
const t = await openTransport('local');

async function once(i) {
  const log = join(dir, `hung-${i}.log`);
  writeFileSync(log, HUNG);
  const mtime = (Date.now() - 3 * 3600_000) / 1000;
  utimesSync(log, mtime, mtime);
  const t0 = performance.now();
  let lastByte = 0;
  let done;
  const hang = new Promise((resolve) => (done = resolve));
  // The watch (as `follow` and the cockpit use it): its state poll finds no run here, which is fine.
  const target = { name: 'local', host: 'local', workdir: dir, backend: 'direct', slurm: { extraArgs: [] } };
  const w = createRunWatch({
    transport: t,
    target,
    runId: `hung-${i}`,
    logPath: log,
    whenEnded: 'stop',
    statePollMs: 60_000,
  });
  w.on((o) => {
    if (o.type === 'bytes' && w.offset >= HUNG.length && !lastByte) lastByte = performance.now();
    if (o.type === 'alert' && isHangAlert(o.alert)) done();
  });
  w.start();
  await hang;
  w.close();
  const at = performance.now();
  return { total: at - t0, afterLastByte: at - lastByte };
}

const runs = [];
for (let i = 0; i < 7; i++) runs.push(await once(i));
const med = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`log ${(HUNG.length / 1024).toFixed(0)} KiB, silent 3 h, local transport, median of ${runs.length}:`);
console.log(
  `  hang alert ${med(runs.map((r) => r.total)).toFixed(1)} ms after following started, ${med(runs.map((r) => r.afterLastByte)).toFixed(1)} ms after the last byte was read`,
);
await t.close();
rmSync(dir, { recursive: true, force: true });
