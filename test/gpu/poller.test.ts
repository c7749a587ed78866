// The poller's own unit test: a fake Transport that implements only exec (the real transports
// are tested with a real sshd elsewhere).
import { describe, expect, it } from 'vitest';
import { GpuPoller, gpuCommand, type GpuSnapshot } from '../../src/gpu/index.js';
import type { ExecResult } from '../../src/remote/transport.js';

function fake(answer: (argv: string[]) => ExecResult | Promise<ExecResult>) {
  const calls: string[][] = [];
  return {
    calls,
    transport: {
      target: 'head',
      exec: async (argv: string[]) => {
        calls.push(argv);
        return answer(argv);
      },
    },
  };
}
const ok = (out: string, code = 0): ExecResult => ({
  code,
  signal: null,
  stdout: Buffer.from(out),
  stderr: Buffer.alloc(0),
});

async function waitFor(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('GpuPoller', () => {
  it('runs nvidia-smi directly for a single node and parses its rows', async () => {
    const f = fake(() => ok('0, NVIDIA H200, 1024, 143771, 35\n1, NVIDIA H200, [N/A], 143771, 0\n'));
    const snaps = await new GpuPoller(f.transport, { onSnapshot: () => {}, now: () => 42 }).pollOnce();
    expect(f.calls).toEqual([gpuCommand()]);
    expect(f.calls[0][0]).toBe('nvidia-smi');
    expect(snaps).toEqual([
      {
        node: 'head',
        at: 42,
        gpus: [
          { index: 0, name: 'NVIDIA H200', memoryUsedMiB: 1024, memoryTotalMiB: 143771, utilizationPct: 35 },
          { index: 1, name: 'NVIDIA H200', memoryUsedMiB: null, memoryTotalMiB: 143771, utilizationPct: 0 },
        ],
      },
    ]);
  });

  it('fans out to several nodes with ONE exec and splits the answer per node', async () => {
    const f = fake(() =>
      ok(
        [
          '@@awrl-node gpu-1',
          '0, NVIDIA H100 80GB HBM3, 60000, 81559, 99',
          '@@awrl-rc 0',
          '@@awrl-node gpu-2',
          'ssh: connect to host gpu-2 port 22: Connection timed out',
          '@@awrl-rc 255',
          '@@awrl-node gpu-3',
          'Field "bogus" is not a valid field to query.',
          '@@awrl-rc 2',
          '',
        ].join('\n'),
      ),
    );
    const snaps = await new GpuPoller(f.transport, {
      nodes: ['gpu-1', 'gpu-2', 'gpu-3', 'gpu-4'],
      onSnapshot: () => {},
    }).pollOnce();
    expect(f.calls).toHaveLength(1);
    expect(f.calls[0].slice(0, 2)).toEqual(['bash', '-c']);
    expect(f.calls[0].slice(3)).toEqual(['awrl-gpu', 'gpu-1', 'gpu-2', 'gpu-3', 'gpu-4']);
    expect(f.calls[0][2]).toContain('BatchMode=yes');
    expect(snaps.map((s) => [s.node, s.gpus.length, s.error !== undefined])).toEqual([
      ['gpu-1', 1, false],
      ['gpu-2', 0, true],
      ['gpu-3', 0, true],
      ['gpu-4', 0, true],
    ]);
    expect(snaps[1].error).toMatch(/ssh to the node failed/);
    expect(snaps[2].error).toMatch(/"bogus"/);
  });

  it('reports an unreachable head as an error snapshot instead of throwing', async () => {
    const f = fake(() => Promise.reject(new Error('Keepalive timeout')));
    const snaps = await new GpuPoller(f.transport, { onSnapshot: () => {} }).pollOnce();
    expect(snaps[0].error).toMatch(/cannot reach head: Keepalive timeout/);
  });

  it('polls at its cadence without overlapping rounds, and stops', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const f = fake(async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      return ok('0, NVIDIA H200, 1, 2, 3\n');
    });
    const got: GpuSnapshot[][] = [];
    const p = new GpuPoller(f.transport, { intervalMs: 1, onSnapshot: (s) => got.push(s) });
    p.start();
    await waitFor(() => got.length >= 3);
    p.stop();
    const n = f.calls.length;
    await new Promise((r) => setImmediate(r));
    expect(maxInFlight).toBe(1);
    expect(f.calls.length).toBeLessThanOrEqual(n + 1);
    expect(got[0][0].gpus[0].memoryTotalMiB).toBe(2);
  });
});

describe('the fan-out script under real bash', () => {
  it('prints one marked answer per node, in order, with each exit code', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { execFileSync } = await import('node:child_process');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { parseFanOut } = await import('../../src/gpu/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'awrl-fanout-'));
    try {
      // A stand-in `ssh` on PATH: answers for "good" nodes, fails like ssh for the others.
      writeFileSync(
        join(dir, 'ssh'),
        '#!/bin/bash\nfor a in "$@"; do case "$a" in good*) echo "0, NVIDIA H200, 7, 143771, 1"; exit 0;; bad*) echo "ssh: Could not resolve hostname $a" >&2; exit 255;; esac; done\n',
        { mode: 0o755 },
      );
      const argv = gpuCommand(['good-1', 'bad-2', 'good-3']);
      const out = execFileSync(argv[0], argv.slice(1), {
        env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
        encoding: 'utf8',
      });
      const snaps = parseFanOut(['good-1', 'bad-2', 'good-3'], out, 0);
      expect(snaps.map((s) => [s.node, s.gpus[0]?.memoryUsedMiB ?? null, s.error ?? null])).toEqual([
        ['good-1', 7, null],
        ['bad-2', null, expect.stringMatching(/bad-2: ssh to the node failed.*Could not resolve hostname/)],
        ['good-3', 7, null],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
