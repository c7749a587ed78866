// `npm run bench -- notify`: what notifications cost `awrl-tui follow RUN --json` of a long ended
// run over ssh (the test sshd, loopback): the same follow without a channel, and with a json://
// channel to a receiver in this process (its policy sees every watch output; a step is the hot
// path and only the terminal's progress reads it, off here: stderr is no terminal). Interleaved
// runs, the median printed, with how many messages the receiver got. Prints, never asserts.
//   AWRL_BENCH_MB      the log's size (default 1100: ≥ 1 GB), generated and deleted afterwards
//   AWRL_BENCH_REPEAT  interleaved runs of each (default 3)
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateArealLog } from './areal-log.mjs';
import { startBenchSshd } from './bench-sshd.mjs';

process.env.NODE_ENV = 'production';
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const BIN = join(root, 'bin/awrl-tui.js');
const MB = Number(process.env.AWRL_BENCH_MB ?? 1100);
const REPEAT = Math.max(1, Number(process.env.AWRL_BENCH_REPEAT ?? 3));
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];

/** `follow --json` to its exit: wall seconds, CPU seconds of the command (bash's time), lines out. */
function follow(args) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const cmd = `TIMEFORMAT='@@cpu %U %S'; time ( ${process.execPath} ${BIN} ${args.join(' ')} | wc -l )`;
    const p = spawn('bash', ['-c', cmd], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, AWRL_NOTIFY: '' },
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (b) => (out += b));
    p.stderr.on('data', (b) => (err = (err + b.toString()).slice(-4000)));
    p.on('error', reject);
    p.on('close', () => {
      const cpu = /@@cpu ([\d.]+) ([\d.]+)/.exec(err);
      if (!cpu) return reject(new Error(`follow: ${err}`));
      resolve({ s: (performance.now() - t0) / 1000, cpu: Number(cpu[1]) + Number(cpu[2]), lines: Number(out.trim()) });
    });
  });
}

const work = mkdtempSync(join(tmpdir(), 'awrl-bench-notify-'));
let sshd;
const received = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    received.push(body);
    res.end();
  });
});
try {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  sshd = await startBenchSshd();
  const runDir = join(work, '.awrl', 'runs', 'notify-bench');
  mkdirSync(runDir, { recursive: true });
  const log = join(runDir, 'stdout.log');
  process.stdout.write(`generating a ${MB} MB AReaL log ...\n`);
  const steps = await generateArealLog(log, MB);
  writeFileSync(join(runDir, 'exit.code'), '0\n');
  const config = join(runDir, 'config.yaml');
  writeFileSync(config, readFileSync(join(root, 'configs/webgym_8x8h100_grpo_inst_nokl.yaml')));
  writeFileSync(
    join(runDir, 'run.json'),
    `${JSON.stringify({
      version: 1,
      runId: 'notify-bench',
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
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`log: ${(statSync(log).size / 2 ** 20).toFixed(0)} MiB, ${steps} steps; loopback sshd; load ${load()}`);
  const base = [
    'follow',
    'notify-bench',
    '--target',
    sshd.alias,
    '-F',
    sshd.sshConfigFile,
    '--workdir',
    work,
    '--json',
  ];
  const runs = { without: [], with: [] };
  for (let i = 0; i < REPEAT; i++) {
    runs.without.push(await follow(base));
    const before = received.length;
    const r = await follow([...base, '--notify', `json://127.0.0.1:${port}/bench`]);
    runs.with.push({ ...r, sent: received.length - before });
  }
  console.log('\nfollow --json of the whole log         wall s (median)   CPU s (median)   lines   messages sent');
  for (const [label, rs] of Object.entries(runs)) {
    console.log(
      `${`${label} a notification channel`.padEnd(38)} ${median(rs.map((r) => r.s))
        .toFixed(2)
        .padStart(14)}   ${median(rs.map((r) => r.cpu))
        .toFixed(2)
        .padStart(
          14,
        )}   ${String(rs[0].lines).padStart(5)}   ${label === 'with' ? rs.map((r) => r.sent).join(', ') : '-'}`,
    );
  }
  console.log(`each run: ${JSON.stringify(runs)}`);
  console.log(`load afterwards ${load()}`);
} finally {
  server.close();
  await sshd?.stop();
  rmSync(work, { recursive: true, force: true });
}
