// The pure halves of the multi-node pieces: a direct run's node discovery, the Ray bring-up lines
// the batch script writes, the GPU scope of a direct run, and the fake ray's texts.
import { describe, it, expect } from 'vitest';
import { directAttemptNodes, directGpuScope, parseDirectNodes } from '../../src/runs/direct-nodes.js';
import { parseRayBringUpLine, RayBringUpLines } from '../../src/watch/ray-bringup-log.js';
import { pendingGpuNote } from '../../src/runs/pending-gpus.js';
import type { RunRecord } from '../../src/runs/run-record.js';
import { listNodesJson, parseRayArgv, statusText, type RegisteredNode } from '../../src/sim/ray.js';

const record = (o: Partial<RunRecord>): RunRecord => ({
  version: 1,
  runId: 'r',
  experiment: 'e',
  trial: 't',
  target: 'login-alias',
  workdir: '/w',
  runDir: '/w/.awrl/runs/r',
  backend: 'direct',
  argv: [],
  secretNames: [],
  createdAt: '2026-12-01T00:00:00Z',
  attempts: [],
  chainJobIds: [],
  autoResume: 0,
  nodes: 1,
  ...o,
});

describe('direct run nodes', () => {
  it('discovered: head first under its hostname (its Ray IP may resolve to anything), workers by name or IP', () => {
    const d = parseDirectNodes(
      [
        '@@head\tgpu-head',
        '@@node\tlocalhost\t127.0.0.1\tALIVE\thead',
        '@@node\tgpu-2\t10.0.0.2\tALIVE\tworker',
        '@@node\t10.0.0.3\t10.0.0.3\tDEAD\tworker',
        '@@node\t-oProxyCommand=x\t1.2.3.4\tALIVE\tworker',
      ].join('\n'),
    );
    expect(d).toMatchObject({ nodes: ['gpu-head', 'gpu-2', '10.0.0.3'], unknown: null });
    expect(
      parseDirectNodes(
        '@@head\th\n@@unknown\tray is not on PATH on the head (after the setup line): name the nodes with --node\n',
      ),
    ).toMatchObject({
      nodes: [],
      unknown: 'ray is not on PATH on the head (after the setup line): name the nodes with --node',
    });
  });

  it('the GPU scope: the head by hostname plus the others; unknown nodes say so; a one-node run is not multi-node', () => {
    const known = record({
      nodes: 4,
      attempts: [{ n: 1, reason: 'launch', startedAt: 'x', pid: 5, nodes: ['h', 'a', 'b'] }],
    });
    expect(directGpuScope(known, ['b', 'c'])).toEqual({ nodes: ['a', 'b', 'c'], includeHead: true, headName: 'h' });
    const unknown = record({
      nodes: 4,
      attempts: [{ n: 1, reason: 'launch', startedAt: 'x', pid: 5, nodesUnknown: 'ray list nodes failed: boom' }],
    });
    expect(directGpuScope(unknown, [])).toEqual({
      includeHead: true,
      note: 'nodes unknown (ray list nodes failed: boom): only the head polled',
    });
    expect(
      directAttemptNodes(record({ nodes: 1, attempts: [{ n: 1, reason: 'launch', startedAt: 'x', pid: 5 }] })),
    ).toBeNull();
    expect(directAttemptNodes(record({ backend: 'slurm', nodes: 4 }))).toBeNull();
  });

  it('a queued or requeued Slurm run has no allocation to poll', () => {
    expect(pendingGpuNote({ state: 'pending', record: record({ backend: 'slurm' }) })).toBe('no allocation (pending)');
    expect(pendingGpuNote({ state: 'running', record: record({ backend: 'slurm' }) })).toBeNull();
    expect(pendingGpuNote({ state: 'pending', record: record({}) })).toBeNull();
  });
});

describe('Ray bring-up lines', () => {
  it("progress, failure with the node and Ray's own line, success", () => {
    const why = 'RuntimeError: Failed to connect to GCS at address 127.0.0.11:6379 within 60 seconds.';
    expect(parseRayBringUpLine(`awrl: starting Ray: 3/4 nodes joined, n3 failed: ${why}`)).toEqual({
      text: `starting Ray: 3/4 nodes joined, n3 failed: ${why}`,
      joined: 3,
      total: 4,
      failures: [{ node: 'n3', why }],
      failed: false,
      done: false,
    });
    const f = parseRayBringUpLine(
      `awrl: starting Ray: failed: 2/4 nodes joined, n3 failed: a, b, n4 failed: c; not starting the trainer`,
    )!;
    expect([f.failed, f.failures]).toEqual([
      true,
      [
        { node: 'n3', why: 'a, b' },
        { node: 'n4', why: 'c' },
      ],
    ]);
    expect(parseRayBringUpLine('awrl: starting Ray: 4/4 nodes joined; starting the trainer')?.done).toBe(true);
    expect(parseRayBringUpLine('awrl: attempt 2')).toBeNull();
  });

  it('fed in chunks that cut lines anywhere', () => {
    const lines = new RayBringUpLines();
    const text = 'x\nawrl: starting Ray: head on n1 (127.0.0.11:6379)\nawrl: starting Ray: 1/2 nodes joined\n';
    const got = [...text].flatMap((c) => lines.push(c)).map((u) => u.text);
    expect(got).toEqual(['starting Ray: head on n1 (127.0.0.11:6379)', 'starting Ray: 1/2 nodes joined']);
  });
});

describe('the fake ray', () => {
  const node = (host: string, head: boolean, beatMs: number): RegisteredNode => ({
    host,
    ip: `10.0.0.${host.slice(1)}`,
    pid: 7,
    head,
    nodeId: `${host}id`,
    address: '10.0.0.1:6379',
    startedMs: 0,
    gpus: 8,
    cpus: 2,
    beatMs,
  });
  it('argv as Ray takes it; status lists live nodes as node_<id>; list nodes marks the silent one DEAD', () => {
    expect(parseRayArgv(['start', '--head', '--port=6380', '--block'])).toMatchObject({
      kind: 'start-head',
      port: 6380,
      block: true,
    });
    expect(parseRayArgv(['start', '--address', '10.0.0.1:6379'])).toMatchObject({
      kind: 'start-worker',
      address: '10.0.0.1:6379',
      block: false,
    });
    const nodes = [node('n1', true, 100_000), node('n2', false, 100_000), node('n3', false, 0)];
    const st = statusText(nodes, 100_500);
    expect(st.split('\n').filter((l) => / node_/.test(l) && l.startsWith(' 1 '))).toEqual([
      ' 1 node_n1id',
      ' 1 node_n2id',
    ]);
    expect(st).toContain(' 0.0/16.0 GPU');
    // -v (what a core-only Ray offers instead of `ray list nodes`): a block per live node, by IP.
    expect(parseRayArgv(['status', '-v'])).toMatchObject({ kind: 'status', verbose: true });
    expect(parseRayArgv(['status', '--verbose'])).toMatchObject({ kind: 'status', verbose: true });
    expect(statusText(nodes, 100_500, true).match(/^Node: .*$/gm)).toEqual([
      'Node: 10.0.0.1 (node_n1id)',
      'Node: 10.0.0.2 (node_n2id)',
    ]);
    expect(st).not.toMatch(/^Node: /m);
    expect(
      JSON.parse(listNodesJson(nodes, 100_500)).map((r: { node_ip: string; state: string }) => [r.node_ip, r.state]),
    ).toEqual([
      ['10.0.0.1', 'ALIVE'],
      ['10.0.0.2', 'ALIVE'],
      ['10.0.0.3', 'DEAD'],
    ]);
  });
});

describe('a node idle while the others work', () => {
  const round = (idle: string[], busy: string[]) => [
    ...busy.map((node) => ({ node, gpus: Array.from({ length: 8 }, () => ({ usedMiB: 60_000 })) })),
    ...idle.map((node) => ({ node, gpus: Array.from({ length: 8 }, () => ({ usedMiB: 3 })) })),
  ];
  it('stands after 2 min of rounds, names the node, clears when it works; all idle is no alert', async () => {
    const { IdleNodeWatch } = await import('../../src/watch/idle-nodes.js');
    const w = new IdleNodeWatch();
    expect(w.push(round(['n3'], ['n1', 'n2', 'n4']), 0)).toBeNull();
    expect(w.push(round(['n3'], ['n1', 'n2', 'n4']), 60_000)).toBeNull();
    const a = w.push(round(['n3'], ['n1', 'n2', 'n4']), 125_000);
    expect(a?.title).toBe('node n3 holds no GPU memory while n1, n2, n4 work (for 2 min)');
    expect(w.push(round([], ['n1', 'n2', 'n3', 'n4']), 130_000)).toBeNull();
    expect(w.push(round(['n1', 'n2', 'n3', 'n4'], []), 400_000)).toBeNull();
    // An unreachable node is not idle: nothing is known of it.
    const u = new IdleNodeWatch(0);
    expect(u.push([...round([], ['n1']), { node: 'n2', gpus: [{ usedMiB: 0 }], unreachable: true }], 0)).toBeNull();
  });
});
