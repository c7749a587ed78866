// A watch's state snapshot (src/watch/watch-snapshot.ts, made by src/session/watch-replay.ts, as the
// sentinel does): restored at a cut of the log and given the rest, the state equals a full read's
// (the store's downsampled series, the rules, the alert history, the eval rounds, the reader's open
// records, the cockpit's records) at every cut, what the watch tells after the cut (every alert
// fired and cleared, every record) is the same, and so is the dashboard's view; restored into
// `follow`'s store of the rules' series (the others dropped), its state is a full read's by such a
// store and it tells the same after the cut. Over the
// simulator's log (instant, with faults: nan grads, zero reward, episode timeouts, eval rounds) and
// the AReaL fixture. A snapshot that does not parse, is of another version or another config is
// refused with why.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { simInit } from '../../src/sim/init.js';
import { WatchReplay } from '../../src/session/watch-replay.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { encodeGraph, decodeGraph, classRegistry, GraphError } from '../../src/health/index.js';
import { ROOT, BIN } from '../ui/sim-run.js';
import { lineEndNear, QUIET_CONTEXT } from '../harness/snapshot-context.js';

const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/stdout.log', import.meta.url).pathname;
/** With the wandb page the config makes: announced before any record, in the store and the event log. */
const WANDB = {
  mode: 'online' as const,
  id: 'x',
  project: 'p',
  entity: 'e',
  url: 'https://wandb.ai/e/p/runs/x',
  unknown: [],
  idFile: null,
};
const FACTS = {
  consumerBatchSize: 32,
  maxHeadOffpolicyness: 2,
  recoverFreqSecs: 600,
  behavImpWeightCap: null,
  wandb: WANDB,
};
/** A small store: its series merge buckets within a short log (the 1024-bucket one only past 1024 steps). */
const CAPACITY = 8;

/** The simulator's stdout for a short instant run with faults and eval rounds. */
function simLog(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-snap-'));
  try {
    const r = simInit(dir, join(ROOT, 'dist'), ROOT, process.execPath, { demo: true });
    const out = spawnSync(
      process.execPath,
      [BIN, 'sim', 'run', '--sim-speed', 'instant', '--config', r.config!, '+total_train_steps=40'],
      {
        cwd: dir,
        env: { ...process.env, AWRL_SIM_FAULT: 'nan-grad@5-8,zero-reward@20,episode-timeout@3-4' },
        maxBuffer: 1 << 26,
      },
    );
    if (out.status !== 0) throw new Error(`sim failed: ${out.stderr.toString()}`);
    return Buffer.concat([out.stdout, out.stderr]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The state's bytes (the snapshot written again: its JSON and its typed arrays' bytes, one char a
 *  byte): equal states, equal text. */
const stateText = (r: WatchReplay) => gunzipSync(r.snapshot()).toString('latin1');

/** What a watch tells, without what differs by nature between two watches (nothing, today). */
function told(r: WatchReplay): WatchOutput[] {
  const out: WatchOutput[] = [];
  r.on((o) => void out.push(o));
  return out;
}

const CTX = QUIET_CONTEXT;

/** Two states' texts equal, or where they first differ. */
function firstDifference(got: string, want: string, cut: number): void {
  if (got === want) return;
  let k = 0;
  while (got[k] === want[k]) k++;
  expect(got.slice(k - 300, k + 200), `cut at ${cut}: the first difference`).toBe(want.slice(k - 300, k + 200));
}

/** Line ends near these parts of the log (a cut inside a table, a traceback: wherever it falls). */
function cuts(bytes: Buffer, parts: number[]): number[] {
  return parts.map((p) => lineEndNear(bytes, p));
}

describe('a watch snapshot', { timeout: 60_000 }, () => {
  let sim: Buffer;
  beforeAll(() => {
    sim = simLog();
  });

  for (const name of ['the simulator', 'the AReaL fixture'])
    it(`restored at a cut and given the rest equals a full read of ${name}'s log`, () => {
      const bytes = name === 'the simulator' ? sim : readFileSync(RUN_A);
      const full = new WatchReplay(FACTS, { storeCapacity: CAPACITY });
      // `follow`'s watch: a store of the rules' series only, read whole beside it.
      const rules = { storeCapacity: CAPACITY, storeSeries: 'rules' } as const;
      const fullRules = new WatchReplay(FACTS, rules);
      const parts = [0.02, 0.21, 0.5, 0.77, 0.98];
      const at = cuts(bytes, parts);
      let from = 0;
      const after: WatchOutput[][] = [];
      const fullTold = told(full);
      for (const cut of at) {
        full.push(bytes.subarray(from, cut));
        fullRules.push(bytes.subarray(from, cut));
        from = cut;
        after.push(fullTold.splice(0));
      }
      full.push(bytes.subarray(from));
      fullRules.push(bytes.subarray(from));
      const fullTail = fullTold.splice(0);
      const want = stateText(full);
      const wantView = full.view.view(CTX);
      expect(JSON.stringify(wantView)).toContain('wandb run (from the config)');
      // The series merged buckets: the test covers the store's downsampling.
      expect(want).toMatch(/"span":[2-9]/);
      at.forEach((cut, i) => {
        const before = new WatchReplay(FACTS, { storeCapacity: CAPACITY });
        // Both in the full read's chunks: the parser's caches (header forms, offsets within a chunk)
        // follow the chunks read, not the log; what it emits does not (the outputs below).
        for (const [j, end] of at.entries()) if (j <= i) before.push(bytes.subarray(j ? at[j - 1] : 0, end));
        const snap = before.snapshot();
        const attached = new WatchReplay(FACTS, { storeCapacity: CAPACITY });
        attached.restore(snap);
        const tail = told(attached);
        for (const [j, end] of [...at, bytes.length].entries())
          if (j > i) attached.push(bytes.subarray(at[j - 1], end));
        firstDifference(stateText(attached), want, cut);
        // Every record and every alert fired or cleared after the cut: the same, in the same order.
        expect(JSON.stringify(tail)).toBe(JSON.stringify([...after.slice(i + 1).flat(), ...fullTail]));
        // The dashboard's view (its figures, alerts, eval table, event log), as data.
        expect(JSON.stringify(attached.view.view(CTX))).toBe(JSON.stringify(wantView));
        // Restored into `follow`'s store (the other series dropped): its state after the rest is a
        // full read's by such a store, and it tells what the cockpit's tells after the cut.
        const narrow = new WatchReplay(FACTS, rules);
        narrow.restore(snap);
        const narrowTail = told(narrow);
        for (const [j, end] of [...at, bytes.length].entries()) if (j > i) narrow.push(bytes.subarray(at[j - 1], end));
        firstDifference(stateText(narrow), stateText(fullRules), cut);
        expect(JSON.stringify(narrowTail)).toBe(JSON.stringify(tail));
      });
      // Alerts fired and cleared across the cuts (the rules were exercised), over many records.
      const all = [...after.flat(), ...fullTail];
      expect(all.filter((o) => o.type === 'alert').length).toBeGreaterThan(0);
      expect(all.filter((o) => o.type === 'alert-cleared').length).toBeGreaterThan(0);
      expect(all.filter((o) => o.type === 'record').length).toBeGreaterThan(50);
    });

  it('is refused with why when it does not parse, is another version, or another config', () => {
    const r = new WatchReplay(FACTS);
    r.push(readFileSync(RUN_A));
    const good = r.snapshot();
    const whole = gunzipSync(good);
    const doc = JSON.parse(whole.toString('utf8', 0, whole.indexOf(0x0a))) as { v: number };
    const other = new WatchReplay(FACTS);
    expect(() => other.restore(Buffer.from('not a snapshot'))).toThrow(/does not parse/);
    expect(() => other.restore(gzipSync(JSON.stringify({ ...doc, v: 99 })))).toThrow(/version 99/);
    expect(() => new WatchReplay({ ...FACTS, maxHeadOffpolicyness: 8 }).restore(good)).toThrow(/other config/);
    // The wandb page the config makes is no fact the rules judge by (the sentinel may not know it yet).
    expect(() => new WatchReplay({ ...FACTS, wandb: { ...WANDB, url: null } }).restore(good)).not.toThrow();
    expect(() => new WatchReplay(FACTS, { storeCapacity: 4 }).restore(good)).toThrow(/store/);
    // A store of the rules' series only is no cockpit's: its snapshot is not restored into one.
    const narrow = new WatchReplay(FACTS, { storeSeries: 'rules' });
    narrow.push(readFileSync(RUN_A));
    expect(() => new WatchReplay(FACTS).restore(narrow.snapshot())).toThrow(/store/);
  });

  it('writes no function, and no class it does not know', () => {
    const reg = classRegistry([]);
    expect(() => encodeGraph({ f: () => 1 }, reg)).toThrow(GraphError);
    expect(() => encodeGraph({ m: new Map([[1, new (class Odd {})()]]) }, reg)).toThrow(/Odd/);
    const shared = { x: [1, Number.NaN, -0, undefined] };
    const e = encodeGraph({ a: shared, b: shared }, reg);
    const back = decodeGraph(e.graph, reg, e.bytes) as Record<string, unknown>;
    expect(back.a).toBe(back.b);
    expect(back.a).toEqual(shared);
  });

  it("keeps typed arrays exactly, their trailing zero bytes left out of the graph's bytes", () => {
    const reg = classRegistry([]);
    const f = new Float64Array(1024);
    f.set([1.5, Number.NaN, 0, 2]);
    // -0's bytes are not zero (its sign bit): not trimmed; a view into a larger buffer: its own bytes.
    const tail = new Float64Array([3, -0]);
    const view = new Uint32Array(new Uint32Array([9, 7, 5, 0, 3]).buffer, 4, 3);
    const state = { f, tail, view, b: Buffer.from([1, 0, 0]), none: new Int32Array(16), same: f };
    const e = encodeGraph(state, reg);
    // Only what precedes each array's last zero bytes is kept: f's first 4 values, tail's -0, view's 7 and 5's low byte.
    expect(e.bytes.length).toBe(4 * 8 + 2 * 8 + (4 + 1) + 1);
    expect(JSON.stringify(e.graph)).not.toMatch(/"b":"/);
    const back = decodeGraph(e.graph, reg, e.bytes) as typeof state;
    expect([...back.f.subarray(0, 5)]).toEqual([1.5, Number.NaN, 0, 2, 0]);
    expect(back.f.length).toBe(1024);
    expect(back.same).toBe(back.f);
    expect(Object.is(back.tail[1], -0)).toBe(true);
    expect([...back.view]).toEqual([7, 5, 0]);
    expect(Buffer.isBuffer(back.b) && [...back.b]).toEqual([1, 0, 0]);
    expect(back.none).toEqual(new Int32Array(16));
    // Bytes cut short (a snapshot's end lost): refused, not restored with zeros.
    expect(() => decodeGraph(e.graph, reg, e.bytes.subarray(0, 20))).toThrow(/not all there/);
  });
});
