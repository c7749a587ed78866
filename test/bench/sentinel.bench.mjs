// The sentinel's own cost over a simulated run (prints, never asserts): `--launch --target local
// --notify json://…` with the simulator as the trainer and a loopback receiver, nothing attached;
// the sentinel's CPU (utime+stime from /proc, as a share of one core) and RSS sampled every second
// until it stops by itself after the run's end; also apart: while the run ran, and its one-off end.
// Goal (issue #30): ≤ 1 % of a core, RSS flat.
//   AWRL_BENCH_EPOCHS  the run's epochs (default 1: 64 steps with sim init's tasks)
//   AWRL_BENCH_SPEED   AWRL_SIM_SPEED (default 150: ~4 s a step)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin', 'awrl-tui.js');
const epochs = Number(process.env.AWRL_BENCH_EPOCHS ?? 1);
const speed = process.env.AWRL_BENCH_SPEED ?? '150';
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-sentinel-'));
const received = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    received.push(body);
    res.end('ok');
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const cli = (args, env = {}) =>
  spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CPU_CLUSTER_TOKEN: 'bench', XDG_CONFIG_HOME: join(dir, 'xdg'), ...env },
  });
cli(['sim', 'init', dir]);
const target = [
  '--target',
  'local',
  '--workdir',
  dir,
  '--setup',
  `export PATH=${dir}/bin:$PATH AWRL_SIM_SPEED=${speed}`,
];
const l = cli(
  ['--launch', ...target, '--config', join(dir, 'configs', 'sim_local.yaml'), `total_train_epochs=${epochs}`],
  { AWRL_NOTIFY: `json://127.0.0.1:${port}/bench` },
);
const pid = Number(/^sentinel\s+(\d+)/m.exec(l.stdout)?.[1]);
if (!pid) {
  process.stdout.write(`launch did not start a sentinel:\n${l.stdout}\n${l.stderr}\n`);
  process.exit(1);
}
const hz = 100; // USER_HZ on Linux
const sample = () => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
    return { t: Date.now(), cpu: (Number(f[11]) + Number(f[12])) / hz, rssMb: rssKb / 1024 };
  } catch {
    return null;
  }
};
// The run's end (its job wrote exit.code): the samples before it are the sentinel watching; after
// it, its one-off end (the log drained, the digest and snapshot brought to the end, the delivery).
const runsDir = join(dir, '.awrl', 'runs');
const runEnded = () => readdirSync(runsDir).some((id) => existsSync(join(runsDir, id, 'exit.code')));
const samples = [];
let beforeEnd = -1;
for (let s = sample(); s; s = sample()) {
  samples.push(s);
  if (beforeEnd < 0 && runEnded()) beforeEnd = Math.max(0, samples.length - 2);
  await new Promise((r) => setTimeout(r, 1000));
}
server.close();
const first = samples.find((s) => s.t - samples[0].t >= 10_000) ?? samples.at(-1); // after its start-up
const last = samples.at(-1);
const share = ((last.cpu - first.cpu) / ((last.t - first.t) / 1000)) * 100;
const rss = samples.map((s) => s.rssMb);
const watched = samples[beforeEnd];
const running =
  watched && watched.t > first.t
    ? `; while the run ran ${(((watched.cpu - first.cpu) / ((watched.t - first.t) / 1000)) * 100).toFixed(2)} %, ` +
      `its end (last digest and snapshot, delivery) ${(last.cpu - watched.cpu).toFixed(2)} s of CPU once`
    : '; the run and the sentinel ended within one sample: its end not seen apart';
process.stdout.write(
  `sentinel over a ${64 * epochs}-step run (${((last.t - samples[0].t) / 1000).toFixed(0)} s watched): ` +
    `CPU ${share.toFixed(2)} % of a core after start-up (start-up ${first.cpu.toFixed(2)} s), ` +
    `RSS ${Math.min(...rss).toFixed(0)}–${Math.max(...rss).toFixed(0)} MB (first ${rss[0].toFixed(0)}, last ${rss.at(-1).toFixed(0)}); ` +
    `${received.length} notifications received${running}\n`,
);
rmSync(dir, { recursive: true, force: true });
