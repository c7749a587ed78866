// What watching a run costs (prints, never asserts): `follow --json` reading a long log to its end
// (CPU of the whole CLI process, per MB and per step), the cockpit's RunFeed reading the same log
// (CPU of this process), the cockpit's idle CPU on a quiet running run (a frame a second, as the
// UI's clock asks), locally and over ssh (the test sshd), with the target-side CPU of the remote
// follower (its processes, by PID) and of everything the cockpit runs there; and follow latency
// (a step appended to the log until the watch reads it) after a quiet spell and while steps come
// steadily, locally and over ssh. A log made of run-a's stdout.log repeated.
//   AWRL_BENCH_ROOT     the checkout to measure (default this one: run it against an older build
//                       of the same bench to compare before/after)
//   AWRL_BENCH_MB       the log's size (default 20)
//   AWRL_BENCH_SECONDS  the idle window (default 60)
//   AWRL_BENCH_QUIET_S  the quiet spell before each of the latency samples after quiet (default 5)
//   AWRL_BENCH_SAMPLES  latency samples after a quiet spell (default 10)
//   AWRL_BENCH_PARTS    which parts, comma-separated (default follow,feed,idle,latency); idle and
//                       latency over ssh also without the resident reader (`ssh-forks`: before); the latency
//                       part also times `ssh HOST tail -F` on the same log (inotify: the reference)
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

process.env.NODE_ENV = 'production';
const here = dirname(fileURLToPath(import.meta.url));
const root = process.env.AWRL_BENCH_ROOT ?? join(here, '../..');
const dist = (p) => join(root, 'dist', p);
const { openTransport } = await import(dist('remote/index.js'));
const { RunFeed } = await import(dist('session/run-feed.js'));
const { createRunWatch } = await import(dist('watch/create-run-watch.js'));
const { startBenchSshd, cpuOf, argvHas } = await import('./bench-sshd.mjs');
const { descendants } = await import('./bench-util.mjs');
const MB = Number(process.env.AWRL_BENCH_MB ?? 20);
const SECONDS = Number(process.env.AWRL_BENCH_SECONDS ?? 60);
const QUIET_S = Number(process.env.AWRL_BENCH_QUIET_S ?? 5);
const SAMPLES = Number(process.env.AWRL_BENCH_SAMPLES ?? 10);
const PARTS = (process.env.AWRL_BENCH_PARTS ?? 'follow,feed,idle,latency').split(',');

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
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
let sshd = null;

/** run-a's records cut after each step's table: appending one makes the reader emit one step. */
function stepBlocks() {
  const end = Buffer.from('\u2558');
  const out = [];
  let from = 0;
  for (let at = one.indexOf(end); at >= 0; at = one.indexOf(end, from)) {
    const nl = one.indexOf(0x0a, at);
    if (nl < 0) break;
    out.push(one.subarray(from, nl + 1));
    from = nl + 1;
  }
  return out;
}
const fmt = (x, d = 2) => x.toFixed(d);

/** Steps (`blocks`, in turn) appended to `p`, each timed until it is seen: `one(i)` appends a
 *  block and resolves (ms) once `saw()` (count and tell), or `count()` then `check()` (a frame
 *  drawn), has seen it. */
function stepCounter(p, blocks) {
  let seen = 0;
  let wake = null;
  const check = () => wake?.();
  return {
    count: () => void seen++,
    check,
    saw: () => {
      seen++;
      check();
    },
    one: async (i) => {
      const want = seen + 1;
      const done = new Promise((r2) => (wake = () => seen >= want && r2()));
      const t0 = performance.now();
      appendFileSync(p, blocks[i % blocks.length]);
      await done;
      return performance.now() - t0;
    },
  };
}
/** SAMPLES steps, each after QUIET_S seconds of quiet (the follower has dropped to its slow poll). */
async function afterQuiet(one) {
  const quiet = [];
  for (let i = 1; i <= SAMPLES; i++) {
    await new Promise((r2) => setTimeout(r2, QUIET_S * 1000));
    quiet.push(await one(i));
  }
  return quiet;
}

try {
  console.log(`log: ${(log.length / 2 ** 20).toFixed(1)} MB, ${steps} steps (run-a × ${reps}); root ${root}`);

  // 1. follow --json to the end of a finished run: the CLI's own CPU (bash `times`: children).
  if (PARTS.includes('follow')) {
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
  }

  // 2. The cockpit's RunFeed following the same log from byte 0 (no backfill).
  if (PARTS.includes('feed')) {
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

    await t.close();
  }

  // 3. Idle: a running run whose log does not grow, a frame a second; locally and over ssh.
  sshd = await startBenchSshd();
  const sshTarget = { ...target, name: sshd.alias, host: sshd.alias };
  const ssh = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
  const local = await openTransport('local');
  // The same over ssh with the follower reading the live tail itself (no resident reader): before.
  const sshForks = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, followResident: false });
  const idle = async (tr, tgt, label) => {
    const id = `idle-${label}`;
    const idleLog = makeRun(id, { running: true });
    let feed;
    await new Promise((resolve) => {
      feed = new RunFeed({
        transport: tr,
        target: tgt,
        logPath: idleLog,
        backfillThresholdBytes: Number.POSITIVE_INFINITY,
        summary: {
          id,
          target: tgt.name,
          state: 'running',
          step: null,
          totalSteps: null,
          reward: null,
          lastStepAt: null,
        },
        onChange: () => feed.trainerLinesOffset >= log.length && resolve(),
      });
      feed.start();
    });
    // Quiet: the catch-up's tail (silence measurement) over, and the log quiet long enough that
    // the state is polled at its quiet pace (run-watch.ts).
    await new Promise((r2) => setTimeout(r2, 35_000));
    const frames = setInterval(() => feed.getView(), 1000);
    // On the target: the follower's processes (argv0 awrl-follow), and everything under the sshd
    // (the follower, the state polls' shells, sshd's own work: with what they reaped).
    // The follower's own children too: its resident reader (perl) and inotifywait live as long as it.
    const followers = () =>
      sshd
        ? [
            ...new Set(
              descendants(sshd.pid)
                .filter((p) => argvHas(p, 'awrl-follow'))
                .flatMap((p) => [p, ...descendants(p)]),
            ),
          ]
        : [];
    const remote = () => ({
      follower: followers().reduce((a, p) => a + cpuOf(p), 0),
      all: sshd ? descendants(sshd.pid).reduce((a, p) => a + cpuOf(p), 0) : 0,
    });
    const r0 = remote();
    const i0 = process.cpuUsage();
    const iw = performance.now();
    await new Promise((r2) => setTimeout(r2, SECONDS * 1000));
    const wall = (performance.now() - iw) / 1000;
    const here = cpuS(process.cpuUsage(i0)) / wall;
    const r1 = remote();
    const nFollowers = followers().length;
    clearInterval(frames);
    feed.close();
    const targetLine =
      tr !== local
        ? `; target: follower ${fmt(((r1.follower - r0.follower) * 100) / wall)} % (${nFollowers} processes), all the cockpit's commands ${fmt(((r1.all - r0.all) * 100) / wall)} %`
        : '';
    console.log(
      `cockpit idle ${label.padEnd(6)} ${fmt(here * 100)} % of a core over ${SECONDS} s (this process)${targetLine}`,
    );
  };
  if (PARTS.includes('idle')) {
    await idle(local, target, 'local');
    await idle(ssh, sshTarget, 'ssh');
    await idle(sshForks, sshTarget, 'ssh-forks');
  }

  // 4. Follow latency: a step appended until the watch reads it, after a quiet spell and steadily.
  const blocks = stepBlocks();
  const latency = async (tr, label) => {
    const p = join(dir, `latency-${label}.log`);
    writeFileSync(p, '');
    const w = createRunWatch({
      transport: tr,
      target: tr === local ? target : sshTarget,
      runId: `lat-${label}`,
      logPath: p,
      whenEnded: 'stop',
      statePollMs: 60_000,
    });
    const steps = stepCounter(p, blocks);
    w.on((o) => {
      if (o.type === 'record' && o.record.type === 'step') steps.saw();
    });
    w.start();
    const one = steps.one;
    await one(0); // the follower is up
    const quiet = await afterQuiet(one);
    const steady = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      steady.push(await one(i));
      await new Promise((r2) => setTimeout(r2, Math.max(0, 200 - (performance.now() - t0))));
    }
    w.close();
    const q = (xs) => `p50 ${fmt(pct(xs, 50), 0)} ms, p95 ${fmt(pct(xs, 95), 0)} ms`;
    console.log(
      `latency ${label.padEnd(6)} after ${QUIET_S} s quiet (${SAMPLES}): ${q(quiet)}; steady, a step per 200 ms (50): ${q(steady)}`,
    );
  };
  // The dashboard: a step appended until the cockpit's frame that shows it is drawn. As the
  // cockpit paints (cockpit.ts): a frame a second, and a change drawn at once when the last frame
  // is at least `frameMs` (100 ms) old, else when it is; a frame derives the view and draws the
  // dashboard (200×50).
  const dashboard = async (tr, tgt, label) => {
    const { dashboardBody } = await import(dist('ui/screens/dashboard.js'));
    const { initialUiState } = await import(dist('ui/ui-state.js'));
    const ui = initialUiState('dashboard');
    const id = `dash-${label}`;
    const p = makeRun(id, { running: true });
    writeFileSync(p, '');
    const steps = stepCounter(p, blocks);
    let pending = null;
    let paintedAt = -Infinity;
    const paint = () => {
      pending = null;
      paintedAt = performance.now();
      dashboardBody(feed.getView(), 200, 47, true, ui);
      steps.check();
    };
    const ticker = setInterval(paint, 1000);
    const feed = new RunFeed({
      transport: tr,
      target: tgt,
      logPath: p,
      statePollMs: 60_000,
      summary: { id, target: tgt.name, state: 'running', step: null, totalSteps: null, reward: null, lastStepAt: null },
      onChange: () => (pending ??= setTimeout(paint, Math.max(0, 100 - (performance.now() - paintedAt)))),
    });
    // Counted as the record arrives, told when a frame is drawn: the frame is the end of the wait.
    feed.watch.on((o) => o.type === 'record' && o.record.type === 'step' && steps.count());
    feed.start();
    await steps.one(0);
    const quiet = await afterQuiet(steps.one);
    feed.close();
    clearTimeout(pending);
    clearInterval(ticker);
    const q = (xs) => `p50 ${fmt(pct(xs, 50), 0)} ms, p95 ${fmt(pct(xs, 95), 0)} ms`;
    console.log(
      `dashboard ${label.padEnd(6)} after ${QUIET_S} s quiet (${SAMPLES}): ${q(quiet)} (step appended → frame drawn)`,
    );
  };
  // The reference: `ssh HOST tail -F` (inotify on the target), timed to the last byte of each step.
  const tailF = async () => {
    const p = join(dir, 'latency-tail.log');
    writeFileSync(p, '');
    const tail = spawn('ssh', ['-F', sshd.sshConfigFile, sshd.alias, 'tail', '-F', '-n', '+1', p], { stdio: 'pipe' });
    let got = 0;
    let sent = 0;
    let wake = null;
    tail.stdout.on('data', (b) => {
      got += b.length;
      wake?.();
    });
    const one = async (i) => {
      const block = blocks[i % blocks.length];
      sent += block.length;
      const done = new Promise((r2) => (wake = () => got >= sent && r2()));
      const t0 = performance.now();
      appendFileSync(p, block);
      await done;
      return performance.now() - t0;
    };
    await one(0);
    const quiet = [];
    for (let i = 1; i <= SAMPLES; i++) {
      await new Promise((r2) => setTimeout(r2, QUIET_S * 1000));
      quiet.push(await one(i));
    }
    tail.kill('SIGTERM');
    await once(tail, 'exit');
    const q = (xs) => `p50 ${fmt(pct(xs, 50), 1)} ms, p95 ${fmt(pct(xs, 95), 1)} ms`;
    console.log(`latency ssh tail -F after ${QUIET_S} s quiet (${SAMPLES}): ${q(quiet)} (the bytes, not parsed)`);
  };
  if (PARTS.includes('latency')) {
    await latency(local, 'local');
    await latency(ssh, 'ssh');
    await latency(sshForks, 'ssh-forks');
    await dashboard(ssh, sshTarget, 'ssh');
    await tailF();
  }
  await local.close();
  await ssh.close();
  await sshForks.close();
} finally {
  for (const p of sleeper) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {}
  }
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
}
