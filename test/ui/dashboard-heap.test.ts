// The dashboard's heap policy (src/session/dashboard-heap.ts) relies on V8 reading its flags at
// each collection: held, a burst of surviving objects does not grow the young generation; released,
// the same burst does (V8's default). Fails on a V8 that ignores --semi-space-growth-factor=1. Run in a fresh node (a test worker's heap has grown already),
// on the built module (dist/, as the cockpit runs it).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

const MODULE = new URL('../../dist/session/dashboard-heap.js', import.meta.url).href;

const SCRIPT = `
import { getHeapSpaceStatistics } from 'node:v8';
import { holdYoungGeneration } from ${JSON.stringify(MODULE)};
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
// A ring of 50,000 live records, replaced 400,000 times: survivors at every scavenge, as a
// history's records kept in the rings until later ones push them out.
const ring = new Array(50000);
const burst = () => { for (let i = 0; i < 400000; i++) ring[i % ring.length] = { i, text: 'step ' + i }; };
const before = newSpace();
const outer = holdYoungGeneration();
const inner = holdYoungGeneration();
burst();
inner();
burst();
const held = newSpace();
outer();
burst();
console.log(JSON.stringify({ before, held, after: newSpace() }));
`;

describe('the dashboard heap', () => {
  it('keeps the young generation at its size while held (nested holds release at the last), grows it after', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const { before, held, after } = JSON.parse(r.stdout) as { before: number; held: number; after: number };
    // V8 commits the second semi-space at the first scavenge: 1 MiB at start, 2 MiB from then on.
    expect(held).toBeLessThanOrEqual(2 * before);
    // V8's default: 2 × 16 MiB (2 × 8 on a small machine). Released, the same burst grows it.
    expect(after).toBeGreaterThanOrEqual(4 * held);
  });
});
