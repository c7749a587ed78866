// CPU per record of the one watch's path (prints, never asserts): the bytes of an AReaL log fed in
// 1 MiB chunks through TrainerLogReader, the same RunAlerts + MetricsStore ingest RunWatch does
// (rules before, store, rules after), against `awrl-tui parse FILE --json` (CPU of its process) on
// the same file in the same run. CPU seconds per 100 MB and the ratio watch / parse.
//   AWRL_BENCH_MB    the log's size (default 50)
//   AWRL_BENCH_BASE  another checkout (built) measured the same way, interleaved (before/after)
//   AWRL_BENCH_RUNS  runs of each (default 3; the best is quoted)
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const self = fileURLToPath(import.meta.url);

// Child mode: one watch-path run over FILE with ROOT's build; prints its CPU seconds.
if (process.argv[2] === '--watch-child') {
  const [, , , root, file] = process.argv;
  const dist = (p) => pathToFileURL(join(root, 'dist', p)).href;
  const { TrainerLogReader } = await import(dist('trainer-log/index.js'));
  const { MetricsStore } = await import(dist('metrics/index.js'));
  const { RunAlerts } = await import(dist('health/index.js'));
  const store = new MetricsStore();
  const alerts = new RunAlerts(store, {});
  const reader = new TrainerLogReader({ lines: false });
  const ingest = (e) => {
    const fired = alerts.arriving(e);
    if (e.type !== 'save') store.ingest(e);
    fired.push(...alerts.read(e, 0));
  };
  const buf = Buffer.alloc(2 ** 20);
  const fd = openSync(file, 'r');
  const t0 = process.cpuUsage();
  let n;
  let records = 0;
  while ((n = readSync(fd, buf, 0, buf.length, null)) > 0) {
    const events = reader.push(buf.subarray(0, n)).events;
    for (const e of events) ingest(e);
    records += events.length;
  }
  for (const e of reader.end().events) ingest(e);
  const u = process.cpuUsage(t0);
  closeSync(fd);
  process.stdout.write(JSON.stringify({ cpu: (u.user + u.system) / 1e6, records }) + '\n');
  process.exit(0);
}

const MB = Number(process.env.AWRL_BENCH_MB ?? 50);
const RUNS = Number(process.env.AWRL_BENCH_RUNS ?? 3);
const roots = [['this', join(here, '../..')]];
if (process.env.AWRL_BENCH_BASE) roots.push(['base', process.env.AWRL_BENCH_BASE]);
const { generateArealLog } = await import('./areal-log.mjs');
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-watch-cpu-'));
const file = join(dir, 'stdout.log');
await generateArealLog(file, MB);
const per100 = (s) => (s * 100 * 1e6) / statSync(file).size;

function watchCpu(root) {
  const r = spawnSync(process.execPath, [self, '--watch-child', root, file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`watch child failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

// bash's `times`: the CPU of the parse process it waited for.
function parseCpu(root) {
  const bin = join(root, 'bin/awrl-tui.js');
  const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  const r = spawnSync('bash', ['-c', `${q(process.execPath)} ${q(bin)} parse ${q(file)} --json >/dev/null; times`], {
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const child = r.stdout.trim().split('\n').pop().trim().split(/\s+/);
  const s = (t) =>
    Number(
      t
        .match(/(\d+)m([\d.]+)s/)
        .slice(1)
        .reduce((m, x) => Number(m) * 60 + Number(x)),
    );
  return s(child[0]) + s(child[1]);
}

try {
  const res = Object.fromEntries(roots.map(([name]) => [name, { watch: [], parse: [], records: 0 }]));
  for (let i = 0; i < RUNS; i++) {
    for (const [name, root] of roots) {
      const w = watchCpu(root);
      res[name].watch.push(w.cpu);
      res[name].records = w.records;
      res[name].parse.push(parseCpu(root));
    }
  }
  console.log(`log ${(statSync(file).size / 1e6).toFixed(0)} MB, best of ${RUNS}, CPU s per 100 MB`);
  for (const [name] of roots) {
    const r = res[name];
    const w = per100(Math.min(...r.watch));
    const p = per100(Math.min(...r.parse));
    const all = (xs) => xs.map((x) => per100(x).toFixed(2)).join(' ');
    console.log(
      `  ${name}: watch path ${w.toFixed(2)} s (${all(r.watch)}), parse --json ${p.toFixed(2)} s (${all(r.parse)}),` +
        ` ratio ${(w / p).toFixed(2)}, ${r.records} records, ${((Math.min(...r.watch) * 1e6) / r.records).toFixed(1)} µs/record`,
    );
  }
  if (res.base) {
    const b = Math.min(...res.base.watch);
    const t = Math.min(...res.this.watch);
    console.log(`  watch path this / base: ${(t / b).toFixed(2)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
