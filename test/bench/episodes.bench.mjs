// `npm run bench -- episodes`: the trajectory viewer's data path over a real sshd.
// 1. Time to the first film strip of a version with 64 episodes (8 GRPO groups of 8, 1280×768
//    screenshots): the version listed (one command: names, sizes, record heads), the first episode's
//    record read whole, its screenshots fetched (smallest first, one command) and drawn as
//    half-block thumbnails.
// 2. Memory with 1,000 screenshots viewed: each fetched once through the cache, decoded, drawn
//    full size; the cache's bytes stay within its budget and the heap is measured after.
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
    const t2 = performance.now();
    const cache = new ShotCache(t);
    let firstShotMs = null;
    const got = await cache.get(
      views.map((v) => v.shot),
      listing.shotSizes,
      () => (firstShotMs ??= performance.now() - t0),
    );
    for (const v of views) renderShot(got.get(v.shot).bytes, { mode: 'blocks', cols: 24, rows: 7, click: v.click });
    const t3 = performance.now();
    runs.push({
      list: t1 - t0,
      record: t2 - t1,
      strip: t3 - t0,
      firstShotMs,
      episodes: listing.episodes.length,
      steps: views.length,
    });
  }
  for (const r of runs)
    console.log(
      `first film strip: ${r.strip.toFixed(0)} ms (list ${r.episodes} episodes ${r.list.toFixed(0)} ms, record ${r.record.toFixed(0)} ms, first screenshot at ${r.firstShotMs.toFixed(0)} ms, ${r.steps} steps)`,
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
    for (const p of batch) renderShot(got.get(p).bytes, { mode: 'blocks', cols: 120, rows: 40 });
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
