// One measured read of a long log, in a process of its own (its CPU time and peak RSS are its
// own). Used by baseline.bench.mjs:
//   node baseline-child.mjs attach|pin|both|compare LOG LAST_STEP SSH_CONFIG
// attach: the cockpit's RunFeed (what opening the run costs); pin: a BaselineFeed (what pinning it
// as the baseline costs); both: the two at once in one process (the cockpit with a baseline);
// compare: `compare`'s read (readRunHistory). Prints one JSON line: ms until done, CPU s, peak RSS MB.
import { dirname } from 'node:path';
import { openTransport } from '../../dist/remote/index.js';
import { RunFeed } from '../../dist/session/run-feed.js';
import { BaselineFeed } from '../../dist/session/baseline-feed.js';
import { readRunHistory } from '../../dist/session/run-history.js';
import { boundDashboardHeap } from '../../dist/session/dashboard-heap.js';
import { SUMMARY_KEYS, SUMMARY_PREFIXES } from '../../dist/metrics/compare.js';

boundDashboardHeap();
const [mode, logPath, lastStepArg, sshConfig] = process.argv.slice(2);
const lastStep = Number(lastStepArg);
const host = process.env.AWRL_BENCH_SSH_HOST ?? 'bench';
const t0 = performance.now();
const transport = await openTransport(host, { sshConfigFile: sshConfig });
const target = {
  name: 'bench',
  host,
  workdir: dirname(logPath),
  python: 'python3',
  backend: 'direct',
  slurm: { extraArgs: [] },
};
const summary = (id) => ({
  id,
  target: 'bench',
  state: 'running',
  step: null,
  totalSteps: null,
  reward: null,
  lastStepAt: null,
});
const noSeries = { series: () => ({ steps: [], values: [] }) };
const checks = [];
const closers = [];
if (mode === 'attach' || mode === 'both') {
  const feed = new RunFeed({
    transport,
    target,
    summary: summary('open'),
    logPath,
    statePollMs: 600_000,
    tickMs: 600_000,
    onChange: () => undefined,
  });
  feed.start();
  checks.push(() => {
    const v = feed.getView();
    return v.figures.step === lastStep && !v.history;
  });
  closers.push(() => feed.close());
}
if (mode === 'pin' || mode === 'both') {
  const b = new BaselineFeed({
    transport,
    target,
    summary: summary('base'),
    logPath,
    statePollMs: 600_000,
    onChange: () => undefined,
  }).start();
  checks.push(() => {
    const o = b.overlay(noSeries, { steps: [], stepSeconds: [], episodes: [] });
    return o.note === undefined && o.series['rollout/reward'].b.steps.at(-1) === lastStep;
  });
  closers.push(() => b.close());
}
if (mode === 'compare') {
  let done = false;
  void readRunHistory(transport, logPath, { keys: SUMMARY_KEYS, prefixes: SUMMARY_PREFIXES }).then((h) => {
    if (h.log === 'read' && h.steps.steps.at(-1) === lastStep) done = true;
  });
  checks.push(() => done);
}
const deadline = Date.now() + 15 * 60_000;
while (!checks.every((c) => c()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
const doneMs = performance.now() - t0;
const u = process.resourceUsage();
for (const c of closers) c();
await transport.close();
console.log(
  JSON.stringify({
    mode,
    doneMs,
    cpuS: (u.userCPUTime + u.systemCPUTime) / 1e6,
    peakMB: u.maxRSS / 1024,
    timedOut: Date.now() >= deadline,
  }),
);
process.exit(0);
