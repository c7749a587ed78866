// The idle-node alert through the one watch: GPU rounds fed to RunWatch (by the cockpit's panel or
// `follow`'s poller) raise an alert naming the node whose GPUs stay idle while the others work, told
// as a watch output (what `follow` prints) and standing in the cockpit's view; it clears when the
// node works, and an ended run's idle nodes are no alert.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import { RunFeed } from '../../src/session/run-feed.js';
import type { Target } from '../../src/runs/targets.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import type { GpuSnapshot } from '../../src/session/types.js';
import { alertJsonLine, alertLine } from '../../src/watch/follow-alerts.js';
import { runningSummary } from '../harness/local-run.js';

const node = (name: string, usedMiB: number): GpuSnapshot => ({
  node: name,
  gpus: Array.from({ length: 8 }, (_, i) => ({ index: i, usedMiB, totalMiB: 81_559, utilPct: 0 })),
});
const round = (n3: number): GpuSnapshot[] => [node('n1', 60_000), node('n2', 60_000), node('n3', n3)];

describe('a node idle while the others work, through the one watch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-idle-node-'));
  let t: Transport;
  const target = {
    name: 'local',
    host: 'local',
    workdir: dir,
    backend: 'direct',
    slurm: { extraArgs: [] },
  } as unknown as Target;
  beforeAll(async () => {
    t = await openTransport('local');
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is told as an alert naming the node once idle long enough, and cleared when it works', () => {
    let now = 1_000_000;
    const w = createRunWatch({
      transport: t,
      target,
      runId: 'r',
      logPath: join(dir, 'none.log'),
      whenEnded: 'stop',
      idleNodeMs: 60_000,
      clock: () => now,
    });
    const outs: WatchOutput[] = [];
    w.on((o) => outs.push(o));
    w.gpuRound(round(0));
    now += 30_000;
    w.gpuRound(round(0));
    expect(outs).toEqual([]); // 30 s idle: a step's phases, not yet a node left out
    now += 31_000;
    w.gpuRound(round(0));
    expect(outs.map((o) => o.type)).toEqual(['alert']);
    const a = outs[0].type === 'alert' ? outs[0].alert : null;
    expect(a?.title).toBe('node n3 holds no GPU memory while n1, n2 work (for 1 min)');
    expect(w.nodeAlerts).toEqual([a]);
    // What `follow` prints of it, human and JSON.
    expect(alertLine(a!)).toMatch(/^alert: \[warning\] node n3 holds no GPU memory while n1, n2 work/);
    expect(JSON.parse(alertJsonLine(a!))).toMatchObject({ type: 'alert', id: 'gpu/idle-nodes/n3', title: a!.title });
    now += 60_000;
    w.gpuRound(round(0)); // still idle: the same alert, not told again
    expect(outs).toHaveLength(1);
    w.gpuRound(round(40_000));
    expect(outs.map((o) => o.type)).toEqual(['alert', 'alert-cleared']);
    expect(w.nodeAlerts).toEqual([]);
    w.close();
  });

  it('stands in the cockpit view with the same words, fed by the GPU panel', () => {
    let now = 2_000_000;
    const feed = new RunFeed({
      transport: t,
      target,
      summary: runningSummary('r'),
      logPath: join(dir, 'none.log'),
      idleNodeMs: 60_000,
      clock: () => now,
      onChange: () => {},
    });
    const told: WatchOutput[] = [];
    feed.watch.on((o) => told.push(o));
    feed.setGpus(round(0));
    now += 61_000;
    feed.setGpus(round(0));
    const shown = feed.getView().alerts.find((x) => x.id === 'gpu/idle-nodes/n3');
    expect(shown?.title).toBe('node n3 holds no GPU memory while n1, n2 work (for 1 min)');
    expect(told.find((o) => o.type === 'alert')).toEqual({ type: 'alert', alert: shown });
    // Every node idle (between phases, or ended): nothing to say.
    now += 1_000;
    feed.setGpus([node('n1', 0), node('n2', 0), node('n3', 0)]);
    expect(feed.getView().alerts.some((x) => x.id.startsWith('gpu/idle-nodes/'))).toBe(false);
    feed.close();
  });
});
