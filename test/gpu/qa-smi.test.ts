// QA as a demanding user: nvidia-smi answers from sick nodes (a GPU fallen off the bus, a driver
// upgraded without a reboot, stray warnings, nothing at all) as the GPU panel receives them.
import { describe, expect, it } from 'vitest';
import { parseGpuAnswer, parseSmiCsv, GPU_QUERY_FIELDS } from '../../src/gpu/index.js';

const row = (i: number, used = 60000) => `${i}, NVIDIA H100 80GB HBM3, ${used}, 81559, 97`;
const eight = Array.from({ length: 8 }, (_, i) => row(i));

describe('a GPU that fell off the bus', () => {
  // nvidia-smi prints the line for the lost GPU among the rows of the others (both spellings seen).
  for (const [lost, code] of [
    ['Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error', 0],
    ['Unable to determine the device handle for GPU 0000:3B:00.0: Unknown Error', 15],
  ] as const) {
    it(`keeps the 7 others, adds no phantom GPU and names the lost one (rc ${code})`, () => {
      const text = [...eight.slice(0, 3), lost, ...eight.slice(4)].join('\n') + '\n';
      const s = parseGpuAnswer('node3', text, code, 1);
      expect(s.gpus.map((g) => g.index)).toEqual([0, 1, 2, 4, 5, 6, 7]);
      expect(s.gpus.every((g) => g.memoryTotalMiB === 81559)).toBe(true);
      expect(s.error).toMatch(/^node3: /);
      expect(s.error).toContain('0000:3B:00.0');
      expect(s.error).toMatch(/reboot|reset/i);
      expect(s.lostGpus).toEqual(['0000:3B:00.0']);
    });
  }

  it('every GPU lost: no rows, the error says which', () => {
    const s = parseGpuAnswer(
      'node3',
      'Unable to determine the device handle for GPU 0000:0B:00.0: GPU is lost.  Reboot the system to recover this GPU\n',
      15,
      1,
    );
    expect(s.gpus).toEqual([]);
    expect(s.error).toContain('0000:0B:00.0');
  });
});

describe('other answers that are not GPU rows', () => {
  it('a stray warning line is not a GPU', () => {
    const s = parseGpuAnswer('node1', ['WARNING: infoROM is corrupted at gpu 0000:04:00.0', ...eight].join('\n'), 0, 1);
    expect(s.gpus).toHaveLength(8);
    expect(s.gpus.every((g) => typeof g.index === 'number')).toBe(true);
  });

  it('empty output with rc 0 is said, not shown as a node with zero GPUs and no word', () => {
    const s = parseGpuAnswer('node1', '', 0, 1);
    expect(s.gpus).toEqual([]);
    expect(s.error).toMatch(/^node1: .*nothing/);
  });

  it('a driver/library version mismatch says what to do', () => {
    const s = parseGpuAnswer(
      'node2',
      'Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.183\n',
      18,
      1,
    );
    expect(s.gpus).toEqual([]);
    expect(s.error).toContain('Driver/library version mismatch');
    expect(s.error).toMatch(/reboot/i);
  });

  it('no devices (rc 6) and no driver (rc 9) say so', () => {
    expect(parseGpuAnswer('login-1', 'No devices were found\n', 6, 1).error).toMatch(
      /^login-1: nvidia-smi sees no GPU on the node .*: No devices were found$/,
    );
    expect(
      parseGpuAnswer(
        'n1',
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n",
        9,
        1,
      ).error,
    ).toMatch(/driver is not loaded/);
  });

  it('16 GPUs, [N/A] and [Unknown Error] cells, MIG mode ([N/A] utilization) are read as nulls', () => {
    const rows = Array.from({ length: 16 }, (_, i) =>
      i === 5 ? `${i}, NVIDIA H100 80GB HBM3, [Unknown Error], 81559, [N/A]` : row(i, 100 * i),
    );
    const s = parseGpuAnswer('node1', rows.join('\n'), 0, 1);
    expect(s.error).toBeUndefined();
    expect(s.gpus).toHaveLength(16);
    expect(s.gpus[5]).toEqual({
      index: 5,
      name: 'NVIDIA H100 80GB HBM3',
      memoryUsedMiB: null,
      memoryTotalMiB: 81559,
      utilizationPct: null,
    });
    expect(s.gpus[15].memoryUsedMiB).toBe(1500);
  });
});

describe('parseSmiCsv', () => {
  it('a one-column text query is not mistaken for a header', () => {
    expect(parseSmiCsv('Default\nDefault\n', { fields: ['compute_mode'] }).rows).toEqual([
      { compute_mode: 'Default' },
      { compute_mode: 'Default' },
    ]);
  });

  it('lines that are messages, not rows, are kept apart', () => {
    const t = parseSmiCsv(
      [row(0), 'Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error'].join('\n'),
      { fields: [...GPU_QUERY_FIELDS], header: false },
    );
    expect(t.rows).toHaveLength(1);
    expect(t.notes).toEqual(['Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error']);
  });
});

describe('a lost GPU reported on stderr with rc 0, through the real fan-out script (bash, the head without ssh)', () => {
  it('the fan-out answer names the lost GPU and keeps the 7 others', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { execFile } = await import('node:child_process');
    const { GpuPoller } = await import('../../src/gpu/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'awrl-gpu-lost-'));
    try {
      const rows = eight
        .filter((_, i) => i !== 3)
        .map((r) => `echo '${r}'`)
        .join('\n');
      writeFileSync(
        join(dir, 'nvidia-smi'),
        `#!/bin/bash\n${rows}\necho 'Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error' >&2\nexit 0\n`,
        { mode: 0o755 },
      );
      const setup = `export PATH='${dir}':"$PATH"`;
      const run = (argv: string[]) =>
        new Promise<import('../../src/remote/transport.js').ExecResult>((resolve) =>
          execFile(argv[0], argv.slice(1), { encoding: 'buffer' }, (err, stdout, stderr) =>
            resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, signal: null, stdout, stderr }),
          ),
        );
      // box-9 does not resolve (unreachable); the head answers through the fan-out's local branch.
      const [fan] = await new GpuPoller(
        { target: 'box', exec: run },
        {
          nodes: ['box-9'],
          includeHead: true,
          headName: 'box-0',
          setup,
          nodeTimeoutSec: 5,
          connectTimeoutSec: 1,
          onSnapshot: () => {},
        },
      ).pollOnce();
      expect(fan.node).toBe('box-0');
      expect(fan.gpus.map((g) => g.index)).toEqual([0, 1, 2, 4, 5, 6, 7]);
      expect(fan.lostGpus).toEqual(['0000:3B:00.0']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseSmiCsv header detection with the query known', () => {
  it('a header whose names differ from the query (aliases) is still a header', () => {
    const t = parseSmiCsv('index, name, pstate\n0, NVIDIA H200, P0\n', { fields: ['index', 'gpu_name', 'pstate'] });
    expect(t.rows).toEqual([{ index: 0, gpu_name: 'NVIDIA H200', pstate: 'P0' }]);
    expect(parseSmiCsv('pstate\nP0\n', { fields: ['pstate'] }).rows).toEqual([{ pstate: 'P0' }]);
    expect(parseSmiCsv('P0\nP2\n', { fields: ['pstate'] }).rows).toEqual([{ pstate: 'P0' }, { pstate: 'P2' }]);
  });
});
