// `npm run bench -- parse`: throughput and peak RSS of `awrl-tui parse --json` on a generated
// >= 200 MB trainer log (150-250-key tables, memory and batch records, Ray-forwarded worker
// lines), next to `grep -c 'Train step'` and the plain Python script a user would write instead.
// Figures are printed, never asserted. AWRL_BENCH_MB changes the size; AWRL_BENCH_FILE reuses a file.
// Each contender runs AWRL_BENCH_REPEAT times (default 5), interleaved, and its median run (by wall
// time) is printed, then the ratios of the medians and of the best runs (as timeit reports the
// best), and every run's wall time: the bench machines are shared, and one run can be off by 50%.
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/awrl-tui.js', import.meta.url));
const MB = Number(process.env.AWRL_BENCH_MB ?? 210);
const FILE = process.env.AWRL_BENCH_FILE ?? join(tmpdir(), `awrl-bench-${MB}mb.log`);
const ESC = '\x1b';

let seed = 12345;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const sci = (v) => (Number.isNaN(v) ? 'nan' : v.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2'));

function header(stamp, logger, level, msg, colour = '37') {
  return `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[${colour}m${stamp} ${logger} ${level}: ${msg}`;
}

function table(pairs) {
  const cols = 4;
  const rows = Math.ceil(pairs.length / cols);
  const grid = [];
  for (let i = 0; i < rows; i++) {
    const r = [];
    for (let j = 0; j < cols; j++) {
      const it = pairs[j * rows + i];
      r.push(it ? it[0] : '', it ? it[1] : '');
    }
    grid.push(r);
  }
  const w = grid[0].map((_, c) => Math.max(...grid.map((r) => r[c].length)));
  const rule = (l, m, r) => l + w.map((x) => '═'.repeat(x + 2)).join(m) + r;
  const mid = '├' + w.map((x) => '─'.repeat(x + 2)).join('┼') + '┤';
  const out = [rule('╒', '╤', '╕')];
  grid.forEach((r, i) => {
    out.push('│' + r.map((c, k) => ' ' + (k % 2 ? c.padStart(w[k]) : c.padEnd(w[k])) + ' ').join('│') + '│');
    if (i < grid.length - 1) out.push(mid);
  });
  out.push(rule('╘', '╧', '╛'));
  return out.join('\n');
}

function stamp(sec) {
  const d = new Date(Date.UTC(2026, 4, 25) + sec * 1000);
  const p = (n, k = 2) => String(n).padStart(k, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

const BASE_KEYS = [
  'rollout/reward',
  'rollout/num_steps',
  'ppo_actor/update/grad_norm',
  'ppo_actor/update/lr',
  'ppo_actor/n_tokens',
  'timeperf/train_step',
  'timeperf/rollout',
  'staleness/gap/offpolicy_max',
];
function keysFor(n) {
  const ks = [...BASE_KEYS];
  for (let i = 0; ks.length < n; i++)
    ks.push(`ppo_actor/update/compute_logp/extra_${i}/${['avg', 'max', 'min'][i % 3]}`);
  return ks;
}

async function generate() {
  const out = createWriteStream(FILE, { highWaterMark: 1 << 22 });
  let bytes = 0;
  let g = 0;
  let t = 0;
  const write = async (s) => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  const target = MB * 1024 * 1024;
  while (bytes < target) {
    g++;
    t += 600;
    const s = stamp(t);
    const parts = [];
    parts.push(
      header(
        s,
        'RolloutController',
        'INFO',
        `prepare_batch/rollout: pending_before=1, consumed=16, wait=${(500 + rand() * 200).toFixed(1)}s, localize+concat=4.1s, total=${(510 + rand() * 200).toFixed(1)}s, batch_shape=[1093, 15211], n_episodes=128, mmi_len=1093`,
      ) + `${ESC}[0m`,
    );
    for (let w = 0; w < 20; w++) {
      parts.push(
        `(RayRPCServer pid=${48000 + w}, ip=10.0.0.${w % 8}) ` +
          header(
            s,
            'WebGymWorkflow',
            w % 10 ? 'INFO' : 'WARNING',
            w % 10
              ? `episode task=webgym_${g * 20 + w} step=${w}/20 reward=${rand().toFixed(3)} url=https://example.org/page/${w}`
              : `[EPISODE_TIMEOUT] task=webgym_${g} step=17/20 elapsed=45.2min limit=45min — terminating episode`,
          ) +
          `${ESC}[0m`,
      );
    }
    for (const phase of ['recompute logp', 'compute advantages', 'ppo update']) {
      parts.push(
        header(
          s,
          'IOStruct',
          'INFO',
          `Memory-Usage ${phase}: memory allocated (GB): ${(18 + rand() * 3).toFixed(2)}, memory reserved (GB): ${(60 + rand() * 10).toFixed(2)}, device memory used/total (GB): ${(64 + rand() * 10).toFixed(2)}/79.11`,
        ) + `${ESC}[0m`,
      );
    }
    // A run logs one key set (here 200 keys); evaluation steps add their test_rollout/* keys.
    const n = g % 10 === 0 ? 212 : 200;
    const pairs = keysFor(n).map((k) => [
      k,
      rand() < 0.01 ? 'nan' : sci((rand() - 0.3) * 10 ** Math.floor(rand() * 10 - 5)),
    ]);
    parts.push(
      header(s, 'StatsLogger', 'INFO', `Epoch 1/10 Step ${g}/100000 Train step ${g}/1000000 done.`, '92') + `${ESC}[0m`,
    );
    parts.push(header(s, 'StatsLogger', 'INFO', 'Stats (1/1):', '92') + `${ESC}[0m`);
    parts.push(header(s, 'StatsLogger', 'INFO', '', '92') + '\n' + table(pairs) + `${ESC}[0m`);
    await write(parts.join('\n') + '\n');
  }
  out.end();
  await once(out, 'finish');
  return g;
}

const PY = String.raw`
import re, sys
ansi = re.compile(r'\x1b\[[0-9;]*m')
steps = 0
values = 0
in_table = False
with open(sys.argv[1], encoding='utf-8', errors='replace') as f:
    for line in f:
        line = ansi.sub('', line)
        if 'Train step' in line and line.rstrip().endswith('done.'):
            steps += 1
        if line.startswith('│'):
            cells = [c.strip() for c in line.strip().strip('│').split('│')]
            for i in range(1, len(cells), 2):
                if cells[i - 1]:
                    float(cells[i])
                    values += 1
print(steps, values)
`;

/** Runs a command under /usr/bin/time: wall seconds, CPU seconds (user+sys), peak RSS. CPU time
 *  is quoted next to wall time because the bench machines are shared. */
function timed(argv, shell = false) {
  const cmd = shell ? ['bash', '-c', argv] : argv;
  const r = spawnSync('/usr/bin/time', ['-f', '@@time %e %U %S %M', ...cmd], { maxBuffer: 1 << 20, encoding: 'utf8' });
  const m = /@@time ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
  if (!m || (r.status !== 0 && r.status !== 1)) throw new Error(`${cmd.join(' ')} failed: ${r.stderr}`);
  return { s: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), rssMB: Number(m[4]) / 1024, stdout: r.stdout };
}

const generated = !existsSync(FILE);
if (generated) {
  process.stdout.write(`generating ${MB} MB trainer log at ${FILE} ...\n`);
  await generate();
}
const size = statSync(FILE).size;
const sizeMB = size / 1024 / 1024;
process.stdout.write(
  `file: ${sizeMB.toFixed(1)} MB (median of ${Math.max(1, Number(process.env.AWRL_BENCH_REPEAT ?? 5))} interleaved runs each)\n`,
);

// Warm the page cache so every contender reads from memory.
spawnSync('cat', [FILE], { stdio: ['ignore', 'ignore', 'ignore'] });

const q = (x) => `'${x.replace(/'/g, `'\\''`)}'`;
const pyFile = join(tmpdir(), `awrl-bench-plain-${process.pid}.py`);
writeFileSync(pyFile, PY);
const REPEAT = Math.max(1, Number(process.env.AWRL_BENCH_REPEAT ?? 5));
const runs = { ours: [], grep: [], py: [] };
for (let i = 0; i < REPEAT; i++) {
  // As a user runs it: the launcher itself (its #! line), not `node BIN`.
  runs.ours.push(timed(`exec ${q(BIN)} parse --json ${q(FILE)} > /dev/null`, true));
  runs.grep.push(timed(['grep', '-c', 'Train step', FILE]));
  runs.py.push(timed(['/usr/bin/python3', pyFile, FILE]));
}
rmSync(pyFile, { force: true });
// The median run by wall time, with the highest peak RSS of all runs.
const median = (rs) => ({
  ...[...rs].sort((a, b) => a.s - b.s)[(rs.length - 1) >> 1],
  rssMB: Math.max(...rs.map((r) => r.rssMB)),
});
const best = (rs) => Math.min(...rs.map((r) => r.s));
const ours = median(runs.ours);
const grep = median(runs.grep);
const py = median(runs.py);

const line = (name, r) =>
  `${name.padEnd(24)} wall ${r.s.toFixed(2)} s (${(sizeMB / r.s).toFixed(0)} MB/s), cpu ${r.cpu.toFixed(2)} s (${(sizeMB / Math.max(r.cpu, 0.01)).toFixed(0)} MB/s), peak RSS ${r.rssMB.toFixed(0)} MB`;
process.stdout.write(
  [
    line('awrl-tui parse --json', ours),
    line("grep -c 'Train step'", grep) + ` (count ${grep.stdout.trim()})`,
    line('plain Python script', py) + ` (steps, values: ${py.stdout.trim()})`,
    `awrl-tui vs Python: ${(py.s / ours.s).toFixed(2)}x (wall), ${(py.cpu / ours.cpu).toFixed(2)}x (cpu); vs grep: ${(ours.s / Math.max(grep.s, 0.01)).toFixed(1)}x grep's wall time`,
    `wall times (s): awrl-tui ${runs.ours.map((r) => r.s.toFixed(2)).join(' ')}; Python ${runs.py.map((r) => r.s.toFixed(2)).join(' ')}; grep ${runs.grep.map((r) => r.s.toFixed(2)).join(' ')}`,
    `best of ${REPEAT} each: awrl-tui ${best(runs.ours).toFixed(2)} s, Python ${best(runs.py).toFixed(2)} s, grep ${best(runs.grep).toFixed(2)} s; awrl-tui vs Python ${(best(runs.py) / best(runs.ours)).toFixed(2)}x (wall)`,
    '',
  ].join('\n'),
);
if (generated && !process.env.AWRL_BENCH_KEEP) rmSync(FILE, { force: true });
