// One attach of the cockpit's session path (RunFeed → RunWatch → backfill) to a long log, in a
// process of its own so that its peak RSS is its own. Used by attach.bench.mjs:
//   node attach-child.mjs ssh|local LOG LAST_STEP SSH_CONFIG [from-start]
// Prints one JSON line: ms until the dashboard's view shows LAST_STEP (preview or history), ms
// until the history is read, the backfill's note, peak RSS (MB) and RSS after settling, the
// peaks of V8's heap and of external memory (MB).
import { dirname } from 'node:path';
import { openTransport } from '../../dist/remote/index.js';
import { RunFeed } from '../../dist/session/run-feed.js';
import { boundDashboardHeap } from '../../dist/session/dashboard-heap.js';

// As the cockpit's entry does (src/cli/cockpit-flow.ts).
boundDashboardHeap();

const [mode, logPath, lastStepArg, sshConfig, fromStart] = process.argv.slice(2);
const lastStep = Number(lastStepArg);
const sshHost = process.env.AWRL_BENCH_SSH_HOST ?? 'bench';
const t0 = performance.now();
const transport = await openTransport(
  mode === 'ssh' ? sshHost : 'local',
  mode === 'ssh' ? { sshConfigFile: sshConfig } : {},
);
const connectedMs = performance.now() - t0;
let shownMs = null;
let doneMs = null;
let firstViewMs = null;
let note = null;
/** The session's line when the history came from the run's sentinel digest or watch snapshot (digest.bench.mjs). */
let digestNote = null;
let feed;
const look = () => {
  if (!feed) return;
  const v = feed.getView();
  const now = performance.now() - t0;
  if (firstViewMs === null && v.figures.step !== null) firstViewMs = now;
  if (shownMs === null && v.figures.step === lastStep) shownMs = now;
  const n = v.log.find((l) => l.text.startsWith('history:') || l.text.startsWith('backfill failed'));
  if (n && !v.history && doneMs === null) {
    doneMs = now;
    note = n.text;
  }
  if (fromStart && shownMs !== null && doneMs === null) doneMs = now;
  digestNote ??=
    v.log.find((l) => /^(digest:|snapshot:|the run's watch snapshot was not used)/.test(l.text))?.text ?? null;
};
feed = new RunFeed({
  transport,
  target: {
    name: 'bench',
    host: mode === 'ssh' ? sshHost : 'local',
    workdir: dirname(logPath),
    python: 'python3',
    backend: 'direct',
    slurm: { extraArgs: [] },
  },
  summary: {
    id: 'attach-bench',
    target: 'bench',
    state: 'running',
    step: null,
    totalSteps: null,
    reward: null,
    lastStepAt: null,
  },
  logPath,
  statePollMs: 600_000,
  tickMs: 600_000,
  ...(fromStart ? { backfillThresholdBytes: Number.MAX_SAFE_INTEGER } : {}),
  onChange: look,
});
feed.start();
// Where the RSS goes (sampled with each frame): V8's heap as committed, and memory outside it
// (Buffers, ssh2's and zlib's).
let heapMB = 0;
let externalMB = 0;
const sample = () => {
  const m = process.memoryUsage();
  heapMB = Math.max(heapMB, m.heapTotal / 1048576);
  externalMB = Math.max(externalMB, m.external / 1048576);
};
// A frame every 50 ms, as the cockpit paints.
const timer = setInterval(() => {
  look();
  sample();
}, 50);
const deadline = Date.now() + 15 * 60_000;
while ((shownMs === null || doneMs === null) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
clearInterval(timer);
const peakMB = process.resourceUsage().maxRSS / 1024;
await new Promise((r) => setTimeout(r, 2000));
const settledMB = process.memoryUsage().rss / 1048576;
feed.close();
await transport.close();
console.log(
  JSON.stringify({
    mode,
    connectedMs,
    firstViewMs,
    shownMs,
    doneMs,
    note,
    digestNote,
    peakMB,
    settledMB,
    heapMB,
    externalMB,
  }),
);
process.exit(0);
