// A direct 4-node run (the trainer on the head joins a Ray cluster the user started on n1-n4): its
// nodes are discovered from `ray list nodes` (or, on a core-only Ray, `ray status -v`) and recorded in run.json (head first, by hostname, not
// by the ssh alias); the GPU panel's scope polls them; `stop` looks for leftovers on all of them
// without --check-nodes, names each PID's node, stops the tagged one on n3 and leaves the untagged
// GPU holder on n2 alone.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GpuPoller } from '../../src/gpu/index.js';
import { parseRunRecord } from '../../src/runs/index.js';
import { directGpuScope, directRunNodes } from '../../src/runs/direct-nodes.js';
import { createLiveSession } from '../../src/session/live-session.js';
import { followAndPrint } from '../../src/cli/follow-output.js';
import { waitFor } from '../harness/wait.js';
import { sentinelCli } from '../runs/cli-process.js';
import { TOKEN, rayRunOverrides, startWorld, type World } from './world.js';

const { cli } = sentinelCli(TOKEN);

describe('a direct 4-node Ray run', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld(4, 40);
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
  }, 60_000);

  it('discovers and records its nodes; the GPU scope and stop use them', async () => {
    const path = `export PATH=${w.workdir}/bin:$PATH`;
    w.cluster.onNode('n1', `${path}; ray start --head --port=6379 >/dev/null`);
    for (const n of ['n2', 'n3', 'n4']) w.cluster.onNode(n, `${path}; ray start --address=127.0.0.11:6379 >/dev/null`);
    const res = await w.launch(rayRunOverrides(4, 'mn-direct'), { backend: 'direct' });
    const record = parseRunRecord(readFileSync(join(res.record.runDir, 'run.json'), 'utf8'))!;
    expect(record.attempts[0].nodes).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(record.attempts[0].nodes).not.toContain(w.cluster.headAlias);

    const scope = directGpuScope(record, [])!;
    expect(scope).toEqual({ nodes: ['n2', 'n3', 'n4'], includeHead: true, headName: 'n1' });
    await waitFor(() => /Train step 1\/\d+ done/.test(readFileSync(join(res.record.runDir, 'stdout.log'), 'utf8')), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: 'step 1',
    });
    const snaps = await new GpuPoller(w.t, { ...scope, onSnapshot: () => {} }).pollOnce();
    expect(snaps.map((s) => [s.node, s.gpus.length, s.error ?? null])).toEqual(
      ['n1', 'n2', 'n3', 'n4'].map((n) => [n, 8, null]),
    );
    expect(snaps[1].gpus.some((g) => (g.memoryUsedMiB ?? 0) > 1000)).toBe(true); // n2's Ray worker holds its GPUs

    // A tagged leftover on n3, an untagged 30 GB holder on n2 (GPU 3).
    const tagged = Number(
      w.cluster
        .onNode('n3', `AWRL_RUN_ID=${res.record.runId} setsid nohup sleep 600 </dev/null >/dev/null 2>&1 & echo $!`)
        .trim(),
    );
    const holder = Number(w.cluster.onNode('n2', 'setsid nohup sleep 600 </dev/null >/dev/null 2>&1 & echo $!').trim());
    mkdirSync(join(w.workdir, 'state', 'gpu-holders'), { recursive: true });
    writeFileSync(join(w.workdir, 'state', 'gpu-holders', 'n2'), `3 ${holder} 30720 python3\n`);

    const stop = await cli(['stop', res.record.runId, '--yes', ...w.cliArgs({ backend: 'direct' })]);
    expect(stop.stdout).toContain(`n3: PID ${tagged} `);
    expect(stop.stdout).toContain(`n2: PID ${holder} `);
    expect(stop.stdout).toContain(`stopped 1 tagged process: PID n3:${tagged}`);
    expect(stop.stdout).not.toMatch(/leftovers: none/);
    expect(w.cluster.onNode('n2', `kill -0 ${holder} && echo alive`).trim()).toBe('alive');
    expect(w.cluster.onNode('n3', `kill -0 ${tagged} 2>/dev/null && echo alive || echo gone`).trim()).toBe('gone');
    w.cluster.onNode('n2', `kill ${holder}`);
  }, 240_000);

  it('a core-only Ray (no dashboard for `ray list nodes`): the same nodes from `ray status -v`', async () => {
    const core = await directRunNodes(
      w.t,
      w.target({ backend: 'direct', setupExtra: 'export AWRL_SIM_RAY_CORE_ONLY=1' }),
    );
    expect(core.unknown).toBeNull();
    expect(core.nodes).toEqual(['n1', 'n2', 'n3', 'n4']);
    expect(core.found.every((n) => n.ip !== null && n.state === 'ALIVE')).toBe(true);
  }, 60_000);

  it('without a Ray cluster its nodes are unknown and said so; --node gives them once, and pre-flight checks each', async () => {
    const path = `export PATH=${w.workdir}/bin:$PATH`;
    for (const n of ['n1', 'n2', 'n3', 'n4']) w.cluster.onNode(n, `${path}; ray stop >/dev/null`);
    const res = await w.launch(rayRunOverrides(4, 'mn-unknown'), { backend: 'direct' });
    const record = parseRunRecord(readFileSync(join(res.record.runDir, 'run.json'), 'utf8'))!;
    expect(record.attempts[0].nodes).toBeUndefined();
    expect(record.attempts[0].nodesUnknown).toMatch(
      /^ray list nodes failed: ConnectionError: Could not find any running Ray instance/,
    );
    expect(directGpuScope(record, [])?.note).toMatch(
      /^nodes unknown \(ray list nodes failed: .*\): only the head polled$/,
    );
    const stop = await cli(['stop', res.record.runId, '--yes', ...w.cliArgs({ backend: 'direct' })]);
    expect(stop.stdout).toContain(`leftovers: the nodes of ${res.record.runId} are unknown (ray list nodes failed:`);
    expect(stop.stdout).toMatch(/; the run's other nodes are unknown, not checked/);

    const launched = await cli([
      '--launch',
      '--config',
      w.config,
      ...rayRunOverrides(4, 'mn-given'),
      '--node',
      'n2,n3,n4',
      '--skip-preflight',
      ...w.cliArgs({ backend: 'direct' }),
    ]);
    expect(launched.code, launched.stderr).toBe(0);
    expect(launched.stdout + launched.stderr).toMatch(
      /n2: 8 × NVIDIA H100 80GB HBM3; n3: 8 × NVIDIA H100 80GB HBM3; n4: 8 × NVIDIA H100 80GB HBM3/,
    );
    const runId = /(mn-given-\d{8}-\d{6}-[0-9a-f]{4})/.exec(launched.stdout + launched.stderr)?.[1];
    const given = parseRunRecord(readFileSync(join(w.workdir, '.awrl', 'runs', runId!, 'run.json'), 'utf8'))!;
    expect([given.nodeNames, given.attempts[0].nodes]).toEqual([
      ['n2', 'n3', 'n4'],
      ['n1', 'n2', 'n3', 'n4'],
    ]);
    // No Ray worker on n2-n4 (none joined): their GPUs stay idle while the head works, and the one
    // watch says so to both renderers: the cockpit's alerts (its GPU panel's rounds) and `follow --json`.
    const title = /^nodes n2, n3, n4 hold no GPU memory while n1 works/;
    const session = createLiveSession({
      targets: [{ target: w.target({ backend: 'direct' }), transport: w.t }],
      runFacts: async () => ({}),
      runsPollMs: 5_000,
      idleNodeMs: 0,
    });
    const printed: string[] = [];
    let followed: Promise<number> | null = null;
    try {
      session.actions.selectRun(runId!);
      const shown = await waitFor(
        () => session.getState().run?.alerts.find((a) => a.id === 'gpu/idle-nodes/n2,n3,n4'),
        { timeoutMs: 60_000, what: "the cockpit's idle-nodes alert" },
      );
      expect(shown.title).toMatch(title);
      followed = followAndPrint({
        writeOut: (bytes) => printed.push(...Buffer.from(bytes).toString().split('\n')),
        transport: w.t,
        target: w.target({ backend: 'direct' }),
        runId: runId!,
        logPath: join(w.workdir, '.awrl', 'runs', runId!, 'stdout.log'),
        json: true,
        facts: {},
        reconnectTimeoutS: 60,
        where: '',
        gpuPollMs: 1_000,
        idleNodeMs: 0,
      });
      const line = await waitFor(
        () => printed.map((l) => l.trim()).find((l) => l.includes('"id":"gpu/idle-nodes/n2,n3,n4"')),
        { timeoutMs: 60_000, what: "follow's idle-nodes alert" },
      );
      expect(JSON.parse(line)).toMatchObject({
        type: 'alert',
        severity: 'warning',
        title: expect.stringMatching(title),
      });
    } finally {
      await session.close();
      await cli(['stop', runId!, '--yes', ...w.cliArgs({ backend: 'direct' })]);
      await followed?.catch(() => undefined);
    }
  }, 240_000);
});
