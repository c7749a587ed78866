// `npm run bench -- baseline`: what pinning a baseline costs (issue #33), beside what attaching to
// the same long log costs, over a throwaway sshd, each in its own process with an empty backfill
// cache: attach (the cockpit's RunFeed), pin (a BaselineFeed), both in one process (the cockpit
// with a baseline pinned), `compare`'s read; then a dashboard frame at 200×50 without a baseline,
// with one (redrawn for another reason: its charts cached; and after a new step: drawn again), and
// smoothed (1024-point series against a 20,000-step baseline thinned as the session hands it).
// Figures are printed, never asserted. AWRL_BENCH_BASELINE_MB (default 1100).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateArealLog } from './areal-log.mjs';
import { startBenchSshd } from './bench-sshd.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const MB = Number(process.env.AWRL_BENCH_BASELINE_MB ?? 1100);
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-baseline-'));
const say = (s) => process.stdout.write(`${s}\n`);
const LAUNCHER_FLAGS = (() => {
  const words = readFileSync(join(here, '../../bin/awrl-tui.js'), 'utf8').split('\n')[0].split(/\s+/);
  return words.slice(words.indexOf('node') + 1);
})();

function child(mode, log, lastStep, sshd) {
  const cache = join(dir, `cache-${mode}`);
  rmSync(cache, { recursive: true, force: true });
  const r = spawnSync(
    process.execPath,
    [...LAUNCHER_FLAGS, join(here, 'baseline-child.mjs'), mode, log, String(lastStep), sshd.sshConfigFile],
    {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production', XDG_CACHE_HOME: cache, AWRL_BENCH_SSH_HOST: sshd.alias },
    },
  );
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    throw new Error(`${mode} failed: ${r.stderr}`);
  }
}

async function frames() {
  const { dashboardBody } = await import('../../dist/ui/screens/dashboard.js');
  const { sampleRunView } = await import('../../dist/session/sample-run.js');
  const { initialUiState } = await import('../../dist/ui/ui-state.js');
  const { lastPerBucket, latestCommonStep } = await import('../../dist/metrics/compare.js');
  const run = sampleRunView({ steps: 1024, now: 0 });
  const pts = (n, k) => ({
    steps: Array.from({ length: n }, (_, i) => (i + 1) * k),
    values: Array.from({ length: n }, (_, i) => Math.sin(i / 50) + i / n),
  });
  const series = {};
  // As the session hands them over (baseline-feed.ts): the baseline thinned to the open run's points.
  const a = pts(1024, 20);
  const b = pts(20_000, 1);
  for (const key of ['rollout/reward', 'staleness/gap/offpolicy_avg', 'derived/step_time_s'])
    series[key] = { a, b: lastPerBucket(b, 1024), latest: latestCommonStep(a, b) };
  const withBase = { ...run, baseline: { label: 'bench:base', runId: 'base', state: 'finished', series } };
  // A new step in either run: the session hands new pairs (no chart of theirs drawn yet).
  const fresh = () => {
    const copy = {};
    for (const [k, v] of Object.entries(series)) copy[k] = { ...v };
    return { ...withBase, baseline: { ...withBase.baseline, series: copy } };
  };
  for (const [name, view, smoothing] of [
    ['no baseline', () => run, 0],
    ['baseline, redraw', () => withBase, 0],
    ['baseline, a new step', fresh, 0],
    ['smoothed 0.9, new step', fresh, 2],
  ]) {
    const ui = { ...initialUiState('dashboard'), smoothing };
    for (let i = 0; i < 20; i++) dashboardBody(view(), 200, 47, true, ui);
    const t = performance.now();
    const n = 200;
    for (let i = 0; i < n; i++) dashboardBody(view(), 200, 47, true, ui);
    say(`frame 200×50, ${name.padEnd(22)}: ${((performance.now() - t) / n).toFixed(2)} ms a frame (panels redrawn)`);
  }
}

let sshd;
try {
  sshd = await startBenchSshd();
  const log = join(dir, 'baseline.log');
  say(`generating a ${MB} MiB AReaL log ...`);
  const lastStep = await generateArealLog(log, MB);
  say(`log: ${(statSync(log).size / 1e9).toFixed(2)} GB, ${lastStep} steps`);
  spawnSync('cat', [log], { stdio: 'ignore' });
  for (const mode of ['attach', 'pin', 'both', 'compare']) {
    const r = child(mode, log, lastStep, sshd);
    say(
      `${mode.padEnd(8)}: history read in ${(r.doneMs / 1000).toFixed(2)} s, CPU ${r.cpuS.toFixed(2)} s, peak RSS ${r.peakMB.toFixed(0)} MB${r.timedOut ? ' (TIMED OUT)' : ''}`,
    );
  }
  await frames();
} finally {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
}
