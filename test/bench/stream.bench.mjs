// `npm run bench -- stream`: `awrl-tui follow RUN --json` of a long ended run over ssh (the test
// sshd, loopback) against OpenSSH's `ssh HOST cat LOG | awrl-tui parse /dev/stdin --json`, until
// the last step is printed, side by side and interleaved; then how the follower's backlog crosses
// the wire with each option (plain frames, gzip -1, zstd -1 or lz4 -1 members, jobs; members
// grow from 8 MiB to 128 MiB):
// wall time until the log is read, bytes over the channel, CPU here and on the target; and the
// compressors a head may have, on a slice of the same log. Prints, never asserts.
//   AWRL_BENCH_MB      the log's size (default 1100: ≥ 1 GB), generated (test/bench/areal-log.mjs)
//                      and deleted afterwards
//   AWRL_BENCH_REPEAT  interleaved runs of the headline pair (default 3; the median is printed)
//   AWRL_BENCH_PARTS   which parts to run (default all): compressors, options, headline, transports
//                      (the last: `follow --json` through ssh2 and through OpenSSH over a
//                      ControlMaster, side by side and interleaved)
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import { generateArealLog } from './areal-log.mjs';
import { startBenchSshd, cpuOf } from './bench-sshd.mjs';
import { descendants } from './bench-util.mjs';

process.env.NODE_ENV = 'production';
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const BIN = join(root, 'bin/awrl-tui.js');
const { openTransport } = await import(join(root, 'dist/remote/index.js'));
const { followRun } = await import(join(root, 'dist/runs/follow-run.js'));
const { codecPreference } = await import(join(root, 'dist/remote/member-decoder.js'));
const MB = Number(process.env.AWRL_BENCH_MB ?? 1100);
const REPEAT = Math.max(1, Number(process.env.AWRL_BENCH_REPEAT ?? 3));
const PARTS = new Set((process.env.AWRL_BENCH_PARTS ?? 'compressors,options,headline,transports').split(','));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const mib = (b) => (b / 2 ** 20).toFixed(b < 10 * 2 ** 20 ? 2 : 0);
const q = (x) => `'${String(x).replace(/'/g, `'\\''`)}'`;
const load = () => spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');
const has = (cmd) => spawnSync('bash', ['-c', `command -v ${cmd}`]).status === 0;

/** Runs `bash -c cmd`, counting step lines on its stdout: seconds until the `steps`-th, and to exit. */
function untilLastStep(cmd, steps) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // bash's `time` of the whole pipeline: the CPU it took on this side (ssh and parse, or follow).
    const timedCmd = `TIMEFORMAT='@@cpu %U %S'; time ( ${cmd} )`;
    const p = spawn('bash', ['-c', timedCmd], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let seen = 0;
    let last = null;
    let rest = '';
    let err = '';
    p.stdout.on('data', (b) => {
      const s = rest + b.toString('latin1');
      const lines = s.split('\n');
      rest = lines.pop();
      for (const l of lines) if (l.startsWith('{"type":"step"') && ++seen === steps) last = performance.now();
    });
    p.stderr.on('data', (b) => (err = (err + b.toString()).slice(-2000)));
    p.on('error', reject);
    p.on('close', (code) => {
      const cpu = /@@cpu ([\d.]+) ([\d.]+)/.exec(err);
      if (last === null) reject(new Error(`${cmd}: ${seen} of ${steps} steps (exit ${code}): ${err}`));
      else
        resolve({
          s: (last - t0) / 1000,
          exitS: (performance.now() - t0) / 1000,
          cpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN,
        });
    });
  });
}

function timed(cmd) {
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`);
  return (performance.now() - t0) / 1000;
}

const work = mkdtempSync(join(tmpdir(), 'awrl-bench-stream-'));
let sshd;
try {
  sshd = await startBenchSshd();
  const runDir = join(work, '.awrl', 'runs', 'stream-bench');
  mkdirSync(runDir, { recursive: true });
  const log = join(runDir, 'stdout.log');
  process.stdout.write(`generating a ${MB} MB AReaL log ...\n`);
  const steps = await generateArealLog(log, MB);
  const size = statSync(log).size;
  writeFileSync(join(runDir, 'exit.code'), '0\n');
  // As a launched run has it: its config next to its log, named by --config (follow evaluates it).
  const config = join(runDir, 'config.yaml');
  writeFileSync(config, readFileSync(join(root, 'configs/webgym_8x8h100_grpo_inst_nokl.yaml')));
  writeFileSync(
    join(runDir, 'run.json'),
    `${JSON.stringify({
      version: 1,
      runId: 'stream-bench',
      experiment: 'e',
      trial: 't',
      target: sshd.alias,
      workdir: work,
      runDir,
      backend: 'direct',
      argv: ['python3', 'webgym/train.py', '--config', config],
      secretNames: [],
      createdAt: '2026-12-01T00:00:00.000Z',
      attempts: [{ n: 1, reason: 'launch', startedAt: '2026-12-01T00:00:00.000Z', pid: 2147483 }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    })}\n`,
  );
  spawnSync('cat', [log], { stdio: 'ignore' }); // the page cache holds it for every contender
  console.log(`log: ${mib(size)} MiB, ${steps} steps; loopback sshd; load average ${load()}`);

  // 1. Compressors the head may have, on a 256 MiB slice (this machine is the target).
  if (PARTS.has('compressors')) compressors(log);
  let defaultWire = null;
  if (PARTS.has('options')) defaultWire = await backlogOptions(log, size);
  if (PARTS.has('headline')) await headline(log, size, steps, defaultWire);
  if (PARTS.has('transports')) await transports(size, steps);
} finally {
  await sshd?.stop();
  rmSync(work, { recursive: true, force: true });
}

function compressors(log) {
  const slice = join(work, 'slice');
  spawnSync('bash', ['-c', `head -c ${256 << 20} ${q(log)} > ${q(slice)}`]);
  const decoders = {
    gzip: 'node:zlib',
    zstd: typeof zlib.createZstdDecompress === 'function' ? 'node:zlib' : 'fzstd',
    lz4: 'lz4-frame-decoder.ts',
    xz: null,
  };
  console.log('\ncompressor (one core, 256 MiB slice)   CPU s/GiB   MB/s   ratio   inflated here');
  for (const [name, cmd] of [
    ['gzip -1', 'gzip -1 -c'],
    ['gzip -6', 'gzip -6 -c'],
    ['zstd -1', 'zstd -1 -T1 -c'],
    ['lz4 -1 -B6', 'lz4 -1 -B6 -c'],
    ['xz -0', 'xz -0 -T1 -c'],
  ]) {
    const bin = cmd.split(' ')[0];
    if (!has(bin)) {
      console.log(`${name.padEnd(38)} not installed`);
      continue;
    }
    const r = spawnSync('bash', ['-c', `TIMEFORMAT='%U %S'; time (${cmd} < ${q(slice)} | wc -c)`], {
      encoding: 'utf8',
    });
    const out = Number(r.stdout.trim());
    const [u, sy] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
    const cpu = u + sy;
    console.log(
      `${name.padEnd(38)} ${((cpu * 1024) / 256).toFixed(1).padStart(9)}   ${(256 / cpu).toFixed(0).padStart(4)}   ${(2 ** 28 / out).toFixed(1).padStart(5)}   ${decoders[bin] ?? 'no decoder in Node ' + process.versions.node}`,
    );
  }
  rmSync(slice, { force: true });
}

// 2. The follower's options, in this process: followRun over the whole log.
async function backlogOptions(log, size) {
  console.log(
    '\nfollower backlog option                                  wall s   MB/s   over the channel   CPU here s   CPU target s',
  );
  let defaultWire = null;
  const options = [
    ['plain frames', { followCompressMinBytes: 0 }],
    ['gzip -1, jobs = cores - 1', { followCompressCodec: 'gzip' }],
    ['zstd -1, jobs = cores - 1', { followCompressCodec: 'zstd' }],
    ['lz4 -1, jobs = cores - 1', { followCompressCodec: 'lz4' }],
    ['lz4 -1, 2 jobs', { followCompressCodec: 'lz4', followCompressJobs: 2 }],
    [`default (auto: ${codecPreference('auto').join(', ')}), jobs = cores - 1`, {}],
  ];
  for (const [label, o] of options) {
    const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, ...o });
    let wire = 0;
    const exec = t.execStream.bind(t);
    t.execStream = (argv, eo) => {
      const s = exec(argv, eo);
      if (argv.some((a) => a.includes('awrl-follow'))) s.stdout.on('data', (b) => (wire += b.length));
      return s;
    };
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    const f = followRun(t, log, { onEvent: (e) => void (e.type === 'step' && n++) });
    while (f.offset < size) await sleep(20);
    const wall = (performance.now() - t0) / 1000;
    const c = process.cpuUsage(c0);
    const target = descendants(sshd.pid).reduce((a, p) => a + cpuOf(p), 0);
    f.close();
    await t.close();
    // The next option starts from a target with none of this one's processes.
    for (let i = 0; i < 100 && descendants(sshd.pid).length > 0; i++) await sleep(50);
    if (label.startsWith('default')) defaultWire = wire;
    console.log(
      `${label.padEnd(56)} ${wall.toFixed(2).padStart(6)}   ${(size / 2 ** 20 / wall).toFixed(0).padStart(4)}   ${`${mib(wire)} MiB (${((100 * wire) / size).toFixed(1)} %)`.padStart(16)}   ${((c.user + c.system) / 1e6).toFixed(2).padStart(10)}   ${target.toFixed(2).padStart(12)}   (${n} steps)`,
    );
  }
  return defaultWire;
}

// 3. The headline: the CLI as a user runs it, against OpenSSH + parse, interleaved.
async function headline(log, size, steps, defaultWire) {
  const ssh = `ssh -F ${q(sshd.sshConfigFile)} ${q(sshd.alias)}`;
  const runs = { cat: [], ref: [], follow: [], refCpu: [], followCpu: [] };
  for (let i = 0; i < REPEAT; i++) {
    runs.cat.push(timed(`${ssh} cat ${q(log)} > /dev/null`));
    const ref = await untilLastStep(`${ssh} cat ${q(log)} | ${q(BIN)} parse /dev/stdin --json`, steps);
    const target = `--target ${q(sshd.alias)} -F ${q(sshd.sshConfigFile)} --workdir ${q(work)}`;
    const fol = await untilLastStep(`${q(BIN)} follow stream-bench ${target} --json`, steps);
    runs.ref.push(ref.s);
    runs.refCpu.push(ref.cpu);
    runs.follow.push(fol.s);
    runs.followCpu.push(fol.cpu);
  }
  const [cat, ref, fol] = [median(runs.cat), median(runs.ref), median(runs.follow)];
  const all = (xs) => xs.map((x) => x.toFixed(2)).join(' ');
  console.log(`\n${mib(size)} MiB log over ssh, until the last step is printed (median of ${REPEAT}, interleaved):`);
  console.log(`  ssh HOST cat LOG > /dev/null                       ${cat.toFixed(2)} s   (${all(runs.cat)})`);
  console.log(
    `  ssh HOST cat LOG | awrl-tui parse /dev/stdin --json ${ref.toFixed(2)} s   ${mib(size)} MiB over ssh   (${all(runs.ref)})`,
  );
  console.log(
    `  awrl-tui follow RUN --json                         ${fol.toFixed(2)} s   ${defaultWire === null ? '?' : mib(defaultWire)} MiB over ssh   (${all(runs.follow)})`,
  );
  console.log(
    `  ratio follow / (ssh cat | parse): ${(fol / ref).toFixed(2)} (best runs ${(Math.min(...runs.follow) / Math.min(...runs.ref)).toFixed(2)}); load average ${load()}`,
  );
  // CPU on this side (the target's is not in it): steadier than wall time on a shared machine.
  const [rc, fc] = [median(runs.refCpu), median(runs.followCpu)];
  console.log(
    `  CPU here (median): ssh + parse ${rc.toFixed(2)} s (${all(runs.refCpu)}), follow ${fc.toFixed(2)} s (${all(runs.followCpu)}); ratio ${(fc / rc).toFixed(2)}`,
  );
}

// 4. `follow --json` through each transport: ssh2, and the user's OpenSSH riding a ControlMaster
// (started here, ended by its PID), same ssh config, interleaved.
async function transports(size, steps) {
  const cfg = join(sshd.dir, 'ssh_config_cm');
  writeFileSync(cfg, `${readFileSync(sshd.sshConfigFile, 'utf8')}  ControlPath ${join(sshd.dir, 'cm')}\n`);
  const master = spawn('ssh', ['-F', cfg, '-M', '-N', '-o', 'ControlPersist=no', sshd.alias], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 200 && spawnSync('ssh', ['-F', cfg, '-O', 'check', sshd.alias]).status !== 0; i++)
      await sleep(50);
    const runs = { ssh2: [], openssh: [], ssh2Cpu: [], opensshCpu: [] };
    for (let i = 0; i < REPEAT; i++) {
      for (const client of ['ssh2', 'openssh']) {
        const target = `--target ${q(sshd.alias)} -F ${q(cfg)} --workdir ${q(work)} --ssh ${client}`;
        const r = await untilLastStep(`${q(BIN)} follow stream-bench ${target} --json`, steps);
        runs[client].push(r.s);
        runs[`${client}Cpu`].push(r.cpu);
      }
    }
    const all = (xs) => xs.map((x) => x.toFixed(2)).join(' ');
    console.log(`\nfollow --json of ${mib(size)} MiB through each transport (median of ${REPEAT}, interleaved):`);
    for (const client of ['ssh2', 'openssh']) {
      const wall = median(runs[client]);
      console.log(
        `  ${client.padEnd(8)} ${wall.toFixed(2)} s   ${(size / 2 ** 20 / wall).toFixed(0)} MiB/s   CPU here ${median(runs[`${client}Cpu`]).toFixed(2)} s   (${all(runs[client])})`,
      );
    }
  } finally {
    master.kill('SIGTERM');
  }
}
