// GPU polling of several nodes: unreachable nodes are flagged (never zero GPUs), a node's last good
// figures are kept and marked stale while it does not answer, bad names never reach the head, and
// which hosts a run's panel polls (gpuPollScope). The real two-host hop is in
// test/preflight/two-hosts.test.ts.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GpuPoller, gpuCommand, gpuPollScope, parseFanOut } from '../../src/gpu/index.js';
import { HEAD_NODE } from '../../src/remote/node-fan-out.js';
import type { ExecResult } from '../../src/remote/transport.js';

const ok = (out: string, code = 0): ExecResult => ({
  code,
  signal: null,
  stdout: Buffer.from(out),
  stderr: Buffer.alloc(0),
});
const block = (node: string, rc: number, ...lines: string[]) =>
  [`@@awrl-node ${node}`, ...lines, `@@awrl-rc ${rc}`].join('\n');

function scripted(answers: Array<(argv: string[]) => ExecResult | Promise<ExecResult>>) {
  const calls: string[][] = [];
  let i = 0;
  return {
    calls,
    transport: {
      target: 'login-1',
      exec: async (argv: string[]) => (calls.push(argv), answers[Math.min(i++, answers.length - 1)](argv)),
    },
  };
}

describe('GpuPoller over several nodes', () => {
  it('flags unreachable nodes and keeps their last good figures, marked stale, until they answer again', async () => {
    let clock = 10_000;
    const f = scripted([
      () =>
        ok(
          [
            block(HEAD_NODE, 0, '0, NVIDIA H200, 10, 143771, 1'),
            block('gpu-2', 0, '0, NVIDIA H200, 90000, 143771, 99'),
            block('gpu-3', 255, 'ssh: connect to host gpu-3 port 22: No route to host'),
            '',
          ].join('\n'),
        ),
      () =>
        ok(
          [
            block(HEAD_NODE, 0, '0, NVIDIA H200, 11, 143771, 2'),
            block('gpu-2', 124),
            block('gpu-3', 255, 'ssh: connect to host gpu-3 port 22: No route to host'),
            '',
          ].join('\n'),
        ),
      () => Promise.reject(new Error('Keepalive timeout')),
      () =>
        ok(
          [
            block(HEAD_NODE, 0, '0, NVIDIA H200, 12, 143771, 3'),
            block('gpu-2', 0, '0, NVIDIA H200, 50000, 143771, 80'),
            block('gpu-3', 0, '0, NVIDIA H200, 1, 143771, 0'),
            '',
          ].join('\n'),
        ),
    ]);
    const p = new GpuPoller(f.transport, {
      nodes: ['gpu-2', 'gpu-3'],
      includeHead: true,
      nodeTimeoutSec: 20,
      onSnapshot: () => {},
      now: () => clock,
    });

    const r1 = await p.pollOnce();
    expect(f.calls[0].slice(3)).toEqual(['awrl-gpu', HEAD_NODE, 'gpu-2', 'gpu-3']);
    expect(r1.map((s) => [s.node, s.gpus.length, s.unreachable ?? false, s.stale ?? false])).toEqual([
      ['login-1', 1, false, false],
      ['gpu-2', 1, false, false],
      ['gpu-3', 0, true, false],
    ]);
    expect(r1[2].error).toBe(
      'gpu-3: ssh to the node failed (check that the head can ssh to it without a password): ssh: connect to host gpu-3 port 22: No route to host',
    );

    clock += 7_000;
    const r2 = await p.pollOnce();
    expect(r2[0]).toMatchObject({ node: 'login-1', at: 17_000, gpus: [{ memoryUsedMiB: 11 }] });
    expect(r2[0].stale).toBeUndefined();
    expect(r2[1]).toMatchObject({
      node: 'gpu-2',
      at: 17_000,
      unreachable: true,
      stale: true,
      figuresAt: 10_000,
      gpus: [{ memoryUsedMiB: 90000, utilizationPct: 99 }],
    });
    expect(r2[1].error).toBe('gpu-2: no answer within 20 s (its figures are 7 s old)');
    expect(r2[2]).toMatchObject({ gpus: [], unreachable: true }); // never answered: nothing to show
    expect(r2[2].stale).toBeUndefined();

    clock += 5_000; // the head itself drops: every node unknown, the good figures kept
    const r3 = await p.pollOnce();
    expect(r3.map((s) => [s.node, s.unreachable, s.stale ?? false, s.figuresAt ?? null])).toEqual([
      ['login-1', true, true, 17_000],
      ['gpu-2', true, true, 10_000],
      ['gpu-3', true, false, null],
    ]);
    expect(r3[0].error).toMatch(/^cannot reach login-1: Keepalive timeout \(its figures are 5 s old\)$/);

    const r4 = await p.pollOnce();
    expect(
      r4.map((s) => [s.node, s.gpus[0]?.memoryUsedMiB, s.error ?? null, s.stale ?? null, s.unreachable ?? null]),
    ).toEqual([
      ['login-1', 12, null, null, null],
      ['gpu-2', 50000, null, null, null],
      ['gpu-3', 1, null, null, null],
    ]);
  });

  it('a reachable node whose nvidia-smi fails is not unreachable (its figures still marked stale)', async () => {
    const f = scripted([
      () => ok(block('gpu-1', 0, '0, NVIDIA H200, 5, 143771, 1') + '\n'),
      () => ok(block('gpu-1', 127, 'bash: line 4: nvidia-smi: command not found') + '\n'),
    ]);
    const p = new GpuPoller(f.transport, { nodes: ['gpu-1'], onSnapshot: () => {}, now: () => 0 });
    await p.pollOnce();
    const [s] = await p.pollOnce();
    expect(s).toMatchObject({ node: 'gpu-1', stale: true, gpus: [{ memoryUsedMiB: 5 }] });
    expect(s.unreachable).toBeUndefined();
    expect(s.error).toMatch(/^gpu-1: nvidia-smi is not installed or not on PATH there/);
  });

  it('a bad node name is reported on its own line and never sent to the head', async () => {
    const f = scripted([() => ok(block('gpu-1', 0, '0, NVIDIA H200, 5, 143771, 1') + '\n')]);
    const snaps = await new GpuPoller(f.transport, {
      nodes: ['gpu-1', '-oProxyCommand=touch /tmp/x'],
      onSnapshot: () => {},
    }).pollOnce();
    expect(f.calls[0].slice(3)).toEqual(['awrl-gpu', 'gpu-1']);
    expect(snaps.map((s) => [s.node, s.error ?? null])).toEqual([
      ['gpu-1', null],
      ['-oProxyCommand=touch /tmp/x', "'-oProxyCommand=touch /tmp/x' is not a node name"],
    ]);
    const none = scripted([() => ok('')]);
    const only = await new GpuPoller(none.transport, {
      nodes: ['a b'],
      includeHead: false,
      onSnapshot: () => {},
    }).pollOnce();
    expect(none.calls).toHaveLength(0);
    expect(only.map((s) => s.node)).toEqual(['a b']);
  });

  it('a missing node in the answer is unreachable, not a node with zero GPUs', () => {
    const snaps = parseFanOut(['gpu-1', 'gpu-2'], block('gpu-1', 0, '0, NVIDIA H200, 5, 143771, 1') + '\n', 0);
    expect(snaps[1]).toEqual({
      node: 'gpu-2',
      at: 0,
      gpus: [],
      unreachable: true,
      error: 'gpu-2: no answer from the fan-out script',
    });
  });
});

describe("gpuPollScope: which hosts a run's GPU panel asks", () => {
  it('Slurm: the allocation only; direct: the head and the named hosts', () => {
    expect(gpuPollScope('slurm', ['gpu-1', 'gpu-2'], ['gpu-2', 'gpu-9'])).toEqual({
      nodes: ['gpu-1', 'gpu-2', 'gpu-9'],
      includeHead: false,
    });
    expect(gpuPollScope('slurm', [])).toEqual({});
    expect(gpuPollScope('direct', [])).toEqual({});
    expect(gpuPollScope('direct', [], ['box-2', 'box-3', 'box-2'])).toEqual({
      nodes: ['box-2', 'box-3'],
      includeHead: true,
    });
  });
});

describe("the head's own GPUs with a setup line, under real bash", () => {
  it('runs the setup line first (single host and fan-out with the head)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-gpu-setup-'));
    try {
      writeFileSync(join(dir, 'nvidia-smi'), '#!/bin/bash\necho "0, Fake GPU, $FAKE_USED, 81559, 12"\n', {
        mode: 0o755,
      });
      const setup = `export PATH='${dir}':"$PATH" FAKE_USED=4321; echo noise from setup`;
      const run = (argv: string[]) =>
        new Promise<ExecResult>((resolve) =>
          execFile(argv[0], argv.slice(1), { encoding: 'buffer' }, (err, stdout, stderr) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, signal: null, stdout, stderr }),
          ),
        );
      const single = await new GpuPoller({ target: 'box', exec: run }, { setup, onSnapshot: () => {} }).pollOnce();
      expect(single).toEqual([
        {
          node: 'box',
          at: expect.any(Number),
          gpus: [{ index: 0, name: 'Fake GPU', memoryUsedMiB: 4321, memoryTotalMiB: 81559, utilizationPct: 12 }],
        },
      ]);
      expect(gpuCommand(undefined, { setup }).slice(3)).toEqual(['awrl-gpu', setup]);
      expect(gpuCommand()).toEqual([
        'nvidia-smi',
        '--query-gpu=index,name,memory.used,memory.total,utilization.gpu',
        '--format=csv,noheader,nounits',
      ]);
      // 'bad name' is rejected, so only the head is asked: through the fan-out (includeHead), without ssh.
      const viaFanOut = await new GpuPoller(
        { target: 'box', exec: run },
        { nodes: ['bad name'], includeHead: true, headName: 'box-0', setup, onSnapshot: () => {} },
      ).pollOnce();
      expect(viaFanOut.map((s) => [s.node, s.gpus[0]?.memoryUsedMiB ?? null])).toEqual([
        ['box-0', 4321],
        ['bad name', null],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
