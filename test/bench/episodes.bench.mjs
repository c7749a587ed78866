// `npm run bench -- episodes`: the trajectory viewer's data path over a real sshd.
// 1. Time to the first film strip of a version with 64 episodes (8 GRPO groups of 8, 1280×768
//    screenshots): the version listed (one command: names, sizes, record heads), the first episode's
//    record read whole and its steps drawn as the cockpit's Trajectories screen draws them (the film
//    strip); then its screenshots fetched (smallest first, one command) and the first step drawn
//    with its screenshot in half-block cells at 120×40 (the cockpit's step view).
// 2. Memory with 1,000 screenshots viewed: each fetched once through the cache, decoded and drawn
//    in the cockpit's step view (120×40, colours on) and, as `episodes --show` does, by renderShot;
//    the cache's bytes stay within its budget and the heap is measured after.
// Needs dist/ built.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startBenchSshd } from './bench-sshd.mjs';
import { openTransport } from '../../dist/remote/index.js';
import { dumpGroup } from '../../dist/sim/dump-records.js';
import { decodePng, encodePng } from '../../dist/images/png.js';
import { scaleTo } from '../../dist/images/raster.js';
import { renderShot } from '../../dist/images/render.js';
import { listDumps, readDumpRecord } from '../../dist/runs/dump-list.js';
import { ShotCache } from '../../dist/runs/dump-shots.js';
import { parseRecord, stepViews } from '../../dist/episodes/index.js';
import { emptyTraj, trajectoriesLines } from '../../dist/ui/screens/trajectories.js';
import { frame, lineToAnsi } from '../../dist/ui/lines.js';

/** The cockpit's Trajectories screen at 120×40 (body 37 rows) as the painter gets it. */
const draw = (v) =>
  frame(trajectoriesLines(v, { width: 120, height: 37, colors: true }), 120, 37).map((l) => lineToAnsi(l, true));

const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-episodes-'));
const sshd = await startBenchSshd();
const fileroot = join(dir, 'fileroot');
const logDir = join(fileroot, 'logs', sshd.user, 'exp', 'trial');
const place = { fileroot, experiment: 'exp', trial: 'trial' };
const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;

/** Screenshots at the trainer's size: the simulator's pages scaled up to 1280×768. */
function fullSize(png) {
  const d = decodePng(png);
  const big = scaleTo(d.image, 1280, 768);
  return encodePng(big);
}

try {
  let shots = 0;
  let bytes = 0;
  for (let g = 0; g < 8; g++) {
    for (const f of dumpGroup({
      logDir,
      subdir: 'rollout',
      tailVersion: 5,
      headVersion: 4,
      taskIndex: g,
      nSamples: 8,
      seed: 1,
    })) {
      const path = join(logDir, f.rel);
      mkdirSync(dirname(path), { recursive: true });
      const out = f.rel.endsWith('.png') ? fullSize(f.bytes) : f.bytes;
      if (f.rel.endsWith('.png')) shots++;
      bytes += out.length;
      writeFileSync(path, out);
    }
  }
  console.log(`version 5: 64 episodes, ${shots} screenshots (1280×768), ${mb(bytes)} on disk`);
  const t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const listing = await listDumps(t, place, { version: 5 });
    const t1 = performance.now();
    const first = listing.episodes[0];
    const record = parseRecord(await readDumpRecord(t, first.file));
    const views = stepViews(first.file, record.record);
    const view = { ...emptyTraj(), episodes: listing.episodes, level: 'steps', steps: views, step: 0 };
    const strip = draw(view);
    const t2 = performance.now();
    const cache = new ShotCache(t);
    let firstShotMs = null;
    const got = await cache.get(
      views.map((v) => v.shot),
      listing.shotSizes,
      () => (firstShotMs ??= performance.now() - t0),
    );
    const stepView = draw({ ...view, level: 'step', shots: got });
    const t3 = performance.now();
    if (!strip.some((l) => l.includes('step 0')) || !stepView.some((l) => l.includes('\u2580')))
      throw new Error('the film strip or the step view was not drawn');
    runs.push({
      list: t1 - t0,
      record: t2 - t1,
      strip: t2 - t0,
      step: t3 - t0,
      firstShotMs,
      episodes: listing.episodes.length,
      steps: views.length,
    });
  }
  for (const r of runs)
    console.log(
      `first film strip: ${r.strip.toFixed(0)} ms (list ${r.episodes} episodes ${r.list.toFixed(0)} ms, record + strip drawn ${r.record.toFixed(0)} ms, ${r.steps} steps); first screenshot fetched at ${r.firstShotMs.toFixed(0)} ms, step view with it drawn at ${r.step.toFixed(0)} ms`,
    );

  // 2. 1,000 screenshots viewed (the version's, over and over under distinct names: each a fetch).
  const listing = await listDumps(t, place, { version: 5 });
  const paths = [...listing.shotSizes.keys()];
  const cache = new ShotCache(t);
  const before = process.memoryUsage();
  let viewed = 0;
  let peakRss = before.rss;
  const t0 = performance.now();
  while (viewed < 1000) {
    const batch = paths.slice(0, Math.min(paths.length, 1000 - viewed));
    // A fresh cache key per round: the same files under a size the listing did not give, so each is fetched.
    const sizes = new Map(batch.map((p) => [p, listing.shotSizes.get(p) + viewed]));
    const got = await cache.get(batch, sizes);
    for (const p of batch) {
      const steps = [{ ...stepViews(p, { steps: [{}] })[0], shot: p }];
      draw({ ...emptyTraj(), episodes: listing.episodes, level: 'step', steps, step: 0, shots: got });
      renderShot(got.get(p).bytes, { mode: 'blocks', cols: 120, rows: 40 });
    }
    viewed += batch.length;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  globalThis.gc?.();
  const after = process.memoryUsage();
  console.log(
    `1,000 screenshots viewed in ${((performance.now() - t0) / 1000).toFixed(1)} s (${cache.fetches} fetches): cache holds ${mb(cache.heldBytes)} (budget 64 MB); heap ${mb(before.heapUsed)} → ${mb(after.heapUsed)}; rss ${mb(before.rss)} → peak ${mb(peakRss)}`,
  );
  await t.close();
} finally {
  await sshd.stop();
  rmSync(dir, { recursive: true, force: true });
}
