// `npm run bench -- digest`: attaching the cockpit through the run's sentinel watch snapshot and
// digest (issue #30, src/watch/watch-snapshot.ts, src/session/run-digest.ts) to the 1.1 GB and the
// 5 GB log, side by side with `ssh bench cat LOG > /dev/null` (OpenSSH) through a throwaway sshd,
// measured in the same run, and with today's attach (the target-side filter over the whole log, no
// digest, no local cache). Per size: the time the sentinel takes to write the digest and the
// snapshot from nothing (DigestWriter + SnapshotWriter over the target's files, as the sentinel
// does: the replay of the whole history), the snapshot's size, then per attach (attach-child.mjs:
// RunFeed over ssh, its own process): the time to the full dashboard (the history read) and to the
// last step shown, bytes sent, peak RSS, through the snapshot, through the digest alone (the
// snapshot moved away), and with neither. Goal (issue #30): the full dashboard in at most a quarter
// of `ssh cat` of the 1 GB log, the same for 5 GB. Then `follow RUN` (human lines, the CLI in its
// own process, the log an ended run's) through the snapshot, the digest alone and neither: the
// time to its exit, the bytes its history note says were sent, the lines printed. Figures are
// printed, never asserted. Logs are generated (test/bench/areal-log.mjs), then deleted.
// AWRL_BENCH_DIGEST_MB (default 1100), AWRL_BENCH_5GB=0 to skip the 5 GB log.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateArealLog } from './areal-log.mjs';
import { startBenchSshd } from './bench-sshd.mjs';
import { LocalTransport } from '../../dist/remote/local.js';
import { DigestWriter } from '../../dist/session/digest-writer.js';
import { SnapshotWriter } from '../../dist/session/snapshot-writer.js';
import { digestPathFor, snapshotPathFor } from '../../dist/session/run-digest.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const MB = Number(process.env.AWRL_BENCH_DIGEST_MB ?? 1100);
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-digest-'));
const say = (s) => process.stdout.write(`${s}\n`);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const s2 = (ms) => (ms === null ? 'never' : `${(ms / 1000).toFixed(2)} s`);
const sentOf = (note) => Number(/with ([\d.]+) MiB sent/.exec(note ?? '')?.[1] ?? NaN) * 1048576;

const LAUNCHER_FLAGS = (() => {
  const words = readFileSync(join(here, '../../bin/awrl-tui.js'), 'utf8').split('\n')[0].split(/\s+/);
  return words.slice(words.indexOf('node') + 1);
})();

function sshCat(sshConfig, host, log) {
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', `ssh -F ${sshConfig} ${host} cat ${log} | wc -c`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ssh cat failed: ${r.stderr}`);
  return { s: (performance.now() - t0) / 1000, bytes: Number(r.stdout.trim()) };
}

function attach(log, lastStep, sshConfig, host) {
  const cache = join(dir, `cache-${Math.random().toString(36).slice(2)}`);
  const r = spawnSync(
    process.execPath,
    [...LAUNCHER_FLAGS, join(here, 'attach-child.mjs'), 'ssh', log, String(lastStep), sshConfig],
    {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production', XDG_CACHE_HOME: cache, AWRL_BENCH_SSH_HOST: host },
      maxBuffer: 1 << 24,
    },
  );
  rmSync(cache, { recursive: true, force: true });
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    throw new Error(`attach failed: ${r.stderr}`);
  }
}

/** An ended run around the log (run.json, exit code 0), for `follow`. */
function endedRun(runDir, runId, host) {
  writeFileSync(join(runDir, 'exit.code'), '0\n');
  const at = '2026-12-01T00:00:00.000Z';
  const record = { version: 1, runId, experiment: 'e', trial: 't', target: host, workdir: dir, runDir };
  const more = { backend: 'direct', argv: ['python3', 'webgym/train.py'], secretNames: [], createdAt: at };
  const attempts = [{ n: 1, reason: 'launch', startedAt: at, pid: 2147483 }];
  const run = { ...record, ...more, attempts, chainJobIds: [], autoResume: 0, nodes: 1 };
  writeFileSync(join(runDir, 'run.json'), `${JSON.stringify(run)}\n`);
}

/** `follow RUN` (human lines) to the run's end: seconds, its history note's bytes sent, lines. */
function follow(runId, sshConfig, host) {
  const t0 = performance.now();
  const args = ['follow', runId, '--target', host, '-F', sshConfig, '--workdir', dir];
  const r = spawnSync(process.execPath, [join(here, '../../bin/awrl-tui.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, AWRL_NOTIFY: '' },
    maxBuffer: 1 << 30,
  });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`follow failed (${r.status}): ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l && !/^(watch|state) {2,}/.test(l));
  const history = /^watch {4}history: .*$/m.exec(r.stdout)?.[0] ?? null;
  const path = /^watch {4}(snapshot:|the run's)/m.exec(r.stdout) ? 'snapshot' : history ? 'digest' : 'whole log';
  return { s, sent: history ? sentOf(history) : null, lines: lines.length, path };
}

async function oneSize(mb, sshConfig, host) {
  const runId = `run-${mb}`;
  const runDir = join(dir, '.awrl', 'runs', runId);
  mkdirSync(runDir, { recursive: true });
  const log = join(runDir, 'stdout.log');
  say(`generating a ${mb} MiB AReaL log ...`);
  const lastStep = await generateArealLog(log, mb);
  endedRun(runDir, runId, host);
  const size = statSync(log).size;
  say(`log: ${(size / 1e9).toFixed(2)} GB, ${lastStep} steps; load average ${load()}`);
  spawnSync('cat', [log], { stdio: 'ignore' }); // the page cache, as for a log being written

  const transport = new LocalTransport();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  // The attach's facts are none (attach-child.mjs passes none): the snapshot is made with the same.
  const snapshot = new SnapshotWriter(transport, log, snapshotPathFor(log), Promise.resolve({}));
  const u = await new DigestWriter(transport, log, digestPathFor(log), undefined, snapshot).update();
  const cpu = process.cpuUsage(cpu0);
  await transport.close();
  const digestBytes = statSync(digestPathFor(log)).size;
  const snapBytes = statSync(snapshotPathFor(log)).size;
  say(
    `digest + snapshot written from nothing (the sentinel's first update): ${s2(performance.now() - t0)} ` +
      `(this process ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s cpu; the filter's shell apart), ` +
      `digest ${(digestBytes / 1e6).toFixed(1)} MB, snapshot ${(snapBytes / 1e6).toFixed(2)} MB ` +
      `for ${(u.offset / 1e9).toFixed(2)} GB of log${'error' in (u.snapshot ?? {}) ? ` (snapshot: ${u.snapshot.error})` : ''}`,
  );

  const cat = sshCat(sshConfig, host, log);
  say(`ssh bench cat LOG > /dev/null (OpenSSH): ${cat.s.toFixed(2)} s, ${(cat.bytes / 1e6).toFixed(0)} MB`);
  say(`load average before the attaches: ${load()}`);
  const viaSnapshot = attach(log, lastStep, sshConfig, host);
  renameSync(snapshotPathFor(log), `${snapshotPathFor(log)}.off`);
  const via = attach(log, lastStep, sshConfig, host);
  renameSync(digestPathFor(log), `${digestPathFor(log)}.off`);
  const without = attach(log, lastStep, sshConfig, host);
  const followWhole = follow(runId, sshConfig, host);
  renameSync(`${digestPathFor(log)}.off`, digestPathFor(log));
  const followDigest = follow(runId, sshConfig, host);
  renameSync(`${snapshotPathFor(log)}.off`, snapshotPathFor(log));
  const followSnapshot = follow(runId, sshConfig, host);
  for (const [name, r] of [
    ['through the snapshot', viaSnapshot],
    ['through the digest', via],
    ['without (filter all)', without],
  ]) {
    const sent = sentOf(r.note);
    say(
      `attach ${name.padEnd(21)}: full dashboard ${s2(r.doneMs)} (ratio to ssh cat ${(r.doneMs / 1000 / cat.s).toFixed(2)}), ` +
        `connected ${s2(r.connectedMs)}, last step shown ${s2(r.shownMs)}, sent ${(sent / 1e6).toFixed(1)} MB (${((100 * sent) / size).toFixed(2)} % of the log), ` +
        `peak RSS ${r.peakMB.toFixed(0)} MB; note: ${r.note}${r.digestNote ? `; ${r.digestNote}` : ''}`,
    );
  }
  for (const [name, r] of [
    ['through the snapshot', followSnapshot],
    ['through the digest', followDigest],
    ['the whole log', followWhole],
  ])
    say(
      `follow ${name.padEnd(20)}: to its exit ${r.s.toFixed(2)} s, ` +
        `${r.sent === null ? 'no history note (the whole log followed)' : `sent ${(r.sent / 1e6).toFixed(2)} MB`}, ` +
        `${r.lines} lines (read ${r.path})`,
    );
  rmSync(runDir, { recursive: true, force: true });
}

let sshd;
try {
  sshd = await startBenchSshd();
  await oneSize(MB, sshd.sshConfigFile, sshd.alias);
  const free = Number(spawnSync('df', ['-B1', '--output=avail', tmpdir()], { encoding: 'utf8' }).stdout.split('\n')[1]);
  if (process.env.AWRL_BENCH_5GB === '0') say('5 GB: skipped (AWRL_BENCH_5GB=0)');
  else if (!(free >= 12e9)) say(`5 GB: skipped: ${(free / 1e9).toFixed(1)} GB free in ${tmpdir()} (12 GB wanted)`);
  else await oneSize(5 * 1024, sshd.sshConfigFile, sshd.alias);
} finally {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
}
