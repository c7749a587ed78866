// `npm run bench -- parse`: throughput and peak RSS of `awrl-tui parse --json` on a generated
// >= 200 MB trainer log (150-250-key tables, memory and batch records, Ray-forwarded worker
// lines), next to `grep -c 'Train step'` and the plain Python script a user would write instead.
// Figures are printed, never asserted. AWRL_BENCH_MB changes the size; AWRL_BENCH_FILE reuses a file.
// Each contender runs AWRL_BENCH_REPEAT times (default 5), interleaved (one round runs each once),
// and its median run is printed, then the ratios of the medians, in CPU time (user+sys of the
// child: the bench machines are shared, and CPU time moves far less with their load than wall
// time) and in wall time, and every run's figures. AWRL_BENCH_BASE=path/to/bin/awrl-tui.js adds
// another build (e.g. main's, built elsewhere) as a contender in the same rounds: how a change
// moves the figures, side by side. AWRL_BENCH_PY=0 leaves the Python script out (it takes long).
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
const BASE = process.env.AWRL_BENCH_BASE;
const contenders = [
  // As a user runs it: the launcher itself (its #! line), not `node BIN`.
  ['awrl-tui parse --json', () => timed(`exec ${q(BIN)} parse --json ${q(FILE)} > /dev/null`, true)],
  ...(BASE ? [['base parse --json', () => timed(`exec ${q(BASE)} parse --json ${q(FILE)} > /dev/null`, true)]] : []),
  ["grep -c 'Train step'", () => timed(['grep', '-c', 'Train step', FILE])],
  ...(process.env.AWRL_BENCH_PY === '0'
    ? []
    : [['plain Python script', () => timed(['/usr/bin/python3', pyFile, FILE])]]),
];
const runs = new Map(contenders.map(([name]) => [name, []]));
for (let i = 0; i < REPEAT; i++) for (const [name, run] of contenders) runs.get(name).push(run());
rmSync(pyFile, { force: true });

const mid = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
/** The median wall and the median CPU time (each on its own), with the highest peak RSS. */
const median = (rs) => ({
  s: mid(rs.map((r) => r.s)),
  cpu: mid(rs.map((r) => r.cpu)),
  rssMB: Math.max(...rs.map((r) => r.rssMB)),
  stdout: rs[0].stdout,
});
const m = new Map([...runs].map(([name, rs]) => [name, median(rs)]));
const line = (name, r) =>
  `${name.padEnd(24)} cpu ${r.cpu.toFixed(2)} s (${(sizeMB / Math.max(r.cpu, 0.01)).toFixed(0)} MB/s), wall ${r.s.toFixed(2)} s (${(sizeMB / r.s).toFixed(0)} MB/s), peak RSS ${r.rssMB.toFixed(0)} MB`;
const out = [];
for (const [name, r] of m) {
  const what = name.startsWith('grep')
    ? ` (count ${r.stdout.trim()})`
    : name.startsWith('plain')
      ? ` (steps, values: ${r.stdout.trim()})`
      : '';
  out.push(line(name, r) + what);
}
/** `a`'s time over `b`'s (2.00x: twice as long): of the medians, and the spread of the rounds' own ratios. */
const ratio = (a, b, key) => {
  const per = runs
    .get(a)
    .map((r, i) => r[key] / Math.max(runs.get(b)[i][key], 0.01))
    .sort((x, y) => x - y);
  const med = m.get(a)[key] / Math.max(m.get(b)[key], 0.01);
  return `${med.toFixed(2)}x (rounds ${per[0].toFixed(2)}-${per[per.length - 1].toFixed(2)})`;
};
const vs = (b, label) =>
  `awrl-tui time / ${label} time: ${ratio('awrl-tui parse --json', b, 'cpu')} cpu, ${ratio('awrl-tui parse --json', b, 's')} wall`;
out.push(vs("grep -c 'Train step'", 'grep -c'));
if (m.has('plain Python script')) out.push(vs('plain Python script', 'Python'));
if (BASE) {
  const faster = runs
    .get('awrl-tui parse --json')
    .filter((r, i) => r.cpu < runs.get('base parse --json')[i].cpu).length;
  out.push(`${vs('base parse --json', 'base')}; less cpu than base in ${faster} of ${REPEAT} rounds`);
}
for (const [name, rs] of runs)
  out.push(
    `${name}: cpu ${rs.map((r) => r.cpu.toFixed(2)).join(' ')}; wall ${rs.map((r) => r.s.toFixed(2)).join(' ')}`,
  );
process.stdout.write(out.join('\n') + '\n');
if (generated && !process.env.AWRL_BENCH_KEEP) rmSync(FILE, { force: true });
