// What watching a run costs (prints, never asserts): `follow --json` reading a long log to its end
// (CPU of the whole CLI process, per MB and per step), the cockpit's RunFeed reading the same log
// (CPU of this process), and the cockpit's idle CPU on a quiet running run (a frame a second, as
// the UI's clock asks). Local transport, a log made of run-a's stdout.log repeated.
//   AWRL_BENCH_ROOT     the checkout to measure (default this one: run it against an older build
//                       of the same bench to compare before/after)
//   AWRL_BENCH_MB       the log's size (default 20)
//   AWRL_BENCH_SECONDS  the idle window (default 30)
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.NODE_ENV = 'production';
const here = dirname(fileURLToPath(import.meta.url));
const root = process.env.AWRL_BENCH_ROOT ?? join(here, '../..');
const dist = (p) => join(root, 'dist', p);
const { openTransport } = await import(dist('remote/index.js'));
const { RunFeed } = await import(dist('session/run-feed.js'));
const MB = Number(process.env.AWRL_BENCH_MB ?? 20);
const SECONDS = Number(process.env.AWRL_BENCH_SECONDS ?? 30);

const one = readFileSync(join(here, '../fixtures/shared/fixtures/areal-logs/run-a/stdout.log'));
const reps = Math.max(1, Math.round((MB * 2 ** 20) / one.length));
const log = Buffer.concat(Array.from({ length: reps }, () => one));
const steps = reps * (one.toString('latin1').match(/Train step \d+\/\d+ done/g) ?? []).length;
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-watch-'));
const target = {
  name: 'local',
  host: 'local',
  workdir: dir,
  python: 'python3',
  backend: 'direct',
  slurm: { extraArgs: [] },
};
const sleeper = [];

function makeRun(id, { running }) {
  const runDir = join(dir, '.awrl', 'runs', id);
  mkdirSync(runDir, { recursive: true });
  let pid = 2147483;
  if (running) {
    const p = spawn('sleep', ['3600'], { env: { ...process.env, AWRL_RUN_ID: id }, stdio: 'ignore', detached: true });
    sleeper.push(p.pid);
    pid = p.pid;
    writeFileSync(join(runDir, 'job.pid'), `${pid}\n`);
  } else writeFileSync(join(runDir, 'exit.code'), '0\n');
  const rec = {
    version: 1,
    runId: id,
    experiment: 'e',
    trial: 't',
    target: 'local',
    workdir: dir,
    runDir,
    backend: 'direct',
    argv: ['python3'],
    secretNames: [],
    createdAt: '2026-12-01T00:00:00.000Z',
    attempts: [{ n: 1, reason: 'launch', startedAt: '2026-12-01T00:00:00.000Z', pid }],
    chainJobIds: [],
    autoResume: 0,
    nodes: 1,
  };
  writeFileSync(join(runDir, 'run.json'), `${JSON.stringify(rec)}\n`);
  writeFileSync(join(runDir, 'stdout.log'), log);
  return join(runDir, 'stdout.log');
}

const cpuS = (u) => (u.user + u.system) / 1e6;
const fmt = (x, d = 2) => x.toFixed(d);

try {
  console.log(`log: ${(log.length / 2 ** 20).toFixed(1)} MB, ${steps} steps (run-a × ${reps}); root ${root}`);

  // 1. follow --json to the end of a finished run: the CLI's own CPU (bash `times`: children).
  makeRun('follow-bench', { running: false });
  const bin = join(root, 'bin/awrl-tui.js');
  const r = spawnSync(
    'bash',
    [
      '-c',
      `"${process.execPath}" "${bin}" follow follow-bench --target local --workdir "${dir}" --json > /dev/null 2>&1; times`,
    ],
    { encoding: 'utf8', env: { ...process.env, NODE_ENV: 'production' } },
  );
  const kids = r.stdout
    .trim()
    .split('\n')
    .pop()
    .split(/\s+/)
    .map((t) => {
      const m = /(\d+)m([\d.]+)s/.exec(t);
      return Number(m[1]) * 60 + Number(m[2]);
    });
  const followCpu = kids[0] + kids[1];
  console.log(
    `follow --json:   ${fmt(followCpu)} s CPU  = ${fmt((followCpu * 1000) / (log.length / 2 ** 20), 0)} ms/MB, ${fmt((followCpu * 1e6) / steps, 0)} µs/step (whole CLI, start-up included)`,
  );

  // 2. The cockpit's RunFeed following the same log from byte 0 (no backfill).
  const feedLog = makeRun('feed-bench', { running: false });
  const t = await openTransport('local', { followPollMs: 20 });
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  await new Promise((resolve) => {
    const feed = new RunFeed({
      transport: t,
      target,
      logPath: feedLog,
      backfillThresholdBytes: Number.POSITIVE_INFINITY,
      statePollMs: 60_000,
      summary: {
        id: 'feed-bench',
        target: 'local',
        state: 'running',
        step: null,
        totalSteps: null,
        reward: null,
        lastStepAt: null,
      },
      onChange: () => {
        if (feed.trainerLinesOffset >= log.length) {
          feed.getView();
          feed.close();
          resolve();
        }
      },
    });
    feed.start();
  });
  const feedCpu = cpuS(process.cpuUsage(c0));
  console.log(
    `cockpit feed:    ${fmt(feedCpu)} s CPU (${fmt((performance.now() - w0) / 1000)} s wall) = ${fmt((feedCpu * 1000) / (log.length / 2 ** 20), 0)} ms/MB, ${fmt((feedCpu * 1e6) / steps, 0)} µs/step`,
  );

  // 3. Idle: a running run whose log does not grow, a frame a second.
  const idleLog = makeRun('idle-bench', { running: true });
  let idleFeed;
  await new Promise((resolve) => {
    idleFeed = new RunFeed({
      transport: t,
      target,
      logPath: idleLog,
      backfillThresholdBytes: Number.POSITIVE_INFINITY,
      summary: {
        id: 'idle-bench',
        target: 'local',
        state: 'running',
        step: null,
        totalSteps: null,
        reward: null,
        lastStepAt: null,
      },
      onChange: () => idleFeed.trainerLinesOffset >= log.length && resolve(),
    });
    idleFeed.start();
  });
  await new Promise((r2) => setTimeout(r2, 3000)); // the catch-up's tail (silence measurement)
  const frames = setInterval(() => idleFeed.getView(), 1000);
  const i0 = process.cpuUsage();
  const iw = performance.now();
  await new Promise((r2) => setTimeout(r2, SECONDS * 1000));
  const idle = cpuS(process.cpuUsage(i0)) / ((performance.now() - iw) / 1000);
  clearInterval(frames);
  idleFeed.close();
  await t.close();
  console.log(
    `cockpit idle:    ${fmt(idle * 100)} % of a core over ${SECONDS} s (this process; the state poll's bash every 2 s not counted)`,
  );
} finally {
  for (const p of sleeper) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
}
