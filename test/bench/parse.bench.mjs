// `npm run bench -- parse`: throughput and peak RSS of `awrl-tui parse --json` on a generated
// >= 200 MB trainer log (150-250-key tables, memory and batch records, Ray-forwarded worker
// lines), next to `grep -c 'Train step'` and the plain Python script a user would write instead.
// Figures are printed, never asserted. AWRL_BENCH_MB changes the size; AWRL_BENCH_FILE reuses a file.
// Each contender runs AWRL_BENCH_REPEAT times (default 5), interleaved, and its median run (by wall
// time) is printed, then the ratios of the medians and of the best runs (as timeit reports the
// best), and every run's wall time: the bench machines are shared, and one run can be off by 50%.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateArealLog } from './areal-log.mjs';

const BIN = fileURLToPath(new URL('../../bin/awrl-tui.js', import.meta.url));
const MB = Number(process.env.AWRL_BENCH_MB ?? 210);
const FILE = process.env.AWRL_BENCH_FILE ?? join(tmpdir(), `awrl-bench-${MB}mb.log`);

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
  await generateArealLog(FILE, MB);
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
