// Log pane benchmark (prints, never asserts): the log pane's lines (src/trainer-log's LogLineReader
// into the trainer-lines ring) ingest rate on the real
// trainer output (run-a's stdout.log, repeated), its memory after days' worth of log, and the cost
// of the pane per frame (the pane re-renders on every chunk; lines are cleaned once, on arrival).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (p) => join(root, 'dist', p);
const { TrainerLineRing } = await import(dist('session/trainer-lines.js'));
const { LogLineReader } = await import(dist('trainer-log/index.js'));
/** The cockpit's path: the watch's reader makes the lines, the ring keeps the last 500. */
function paneLines() {
  const ring = new TrainerLineRing();
  const reader = new LogLineReader();
  return { push: (b) => ring.add(reader.push(b)), view: () => ring.view() };
}
const { trainerLogLines } = await import(dist('ui/panels/log.js'));
const { dashboardBody } = await import(dist('ui/screens/dashboard.js'));
const { sampleRunView } = await import(dist('session/sample-run.js'));
const log = readFileSync(join(root, 'test/fixtures/shared/fixtures/areal-logs/run-a/stdout.log'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (b) => (b / 2 ** 20).toFixed(1);

// 1. Ingest: ~100 MB of trainer output in 64 KiB chunks (cut anywhere), as the follower delivers it.
{
  const ring = paneLines();
  const copies = Math.ceil((100 * 2 ** 20) / log.length);
  const big = Buffer.concat(Array.from({ length: 8 }, () => log));
  globalThis.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const s = performance.now();
  let bytes = 0;
  for (let c = 0; c < copies / 8; c++) {
    for (let at = 0; at < big.length; at += 65536) ring.push(big.subarray(at, at + 65536));
    bytes += big.length;
  }
  const ms = performance.now() - s;
  const v = ring.view();
  globalThis.gc?.();
  console.log(
    `ring ingest: ${mb(bytes)} MB of stdout.log in 64 KiB chunks: ${ms.toFixed(0)} ms (${(bytes / 2 ** 20 / (ms / 1000)).toFixed(0)} MB/s), ${v.lines.length + v.dropped} lines kept or dropped`,
  );
  console.log(
    `ring memory after it: heap ${mb(heap0)} → ${mb(process.memoryUsage().heapUsed)} MB (500 lines held, ${v.dropped} dropped)`,
  );
}

// 2. Per frame: the pane at 200×50 (full Log screen) and in the dashboard, from a full ring.
{
  const ring = paneLines();
  for (let i = 0; i < 5; i++) ring.push(log);
  const view = ring.view();
  const time = (f, n = 2000) => {
    for (let i = 0; i < 200; i++) f();
    const ts = [];
    for (let i = 0; i < n; i++) {
      const s = performance.now();
      f();
      ts.push(performance.now() - s);
    }
    return (median(ts) * 1000).toFixed(1);
  };
  console.log(
    `pane frame 200×49, 500 lines held: ${time(() => trainerLogLines({ view, problemsOnly: false, search: '', scroll: 0 }, 200, 49))} µs; with a search: ${time(() => trainerLogLines({ view, problemsOnly: false, search: 'watchdog', scroll: 0 }, 200, 49))} µs; warnings+errors: ${time(() => trainerLogLines({ view, problemsOnly: true, search: '', scroll: 0 }, 200, 49))} µs`,
  );
  const run = { ...sampleRunView({ steps: 2000 }), trainerLines: view };
  const ui = {
    zoom: null,
    showDifficulty: false,
    logAll: false,
    logSearch: '',
    logScroll: 0,
    logView: 'trainer',
    trainerProblemsOnly: false,
  };
  const events = { ...ui, logView: 'events' };
  console.log(
    `dashboard body 200×47 with 2,000 steps: trainer view ${time(() => dashboardBody(run, 200, 47, true, ui), 200)} µs, event view ${time(() => dashboardBody(run, 200, 47, true, events), 200)} µs`,
  );
  // A chunk arriving: push + the new view (one copy of the ring), then the pane.
  const chunk = log.subarray(0, 4096);
  console.log(
    `chunk in → pane lines (4 KiB chunk, 500-line ring): ${time(() => {
      ring.push(chunk);
      trainerLogLines({ view: ring.view(), problemsOnly: false, search: '', scroll: 0 }, 200, 49);
    })} µs`,
  );
}
