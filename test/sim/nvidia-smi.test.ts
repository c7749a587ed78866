// The fake nvidia-smi answers like the real one (fixtures/nvidia-smi, an H200 node) and its output
// goes through the same GPU parser as the real fixtures; memory follows the simulated phase.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { answer, snapshot, H100_TOTAL_MIB } from '../../src/sim/nvidia-smi.js';
import type { SimState } from '../../src/sim/state.js';
import { parseSmiCsv, NvidiaSmiError } from '../../src/gpu/index.js';

const FIX = new URL('../fixtures/shared/fixtures/nvidia-smi/', import.meta.url);
const fixture = (n: string): string => readFileSync(new URL(n, FIX), 'utf8');
const FIELDS =
  'index,uuid,name,memory.used,memory.total,memory.free,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,clocks.sm';
const NOW = new Date(2026, 10, 29, 7, 44, 16, 355).getTime();

const state = (phase: SimState['phase']): SimState => ({
  pid: 1,
  phase,
  step: 3,
  updatedMs: NOW,
  nNodes: 8,
  gpusPerNode: 8,
  rolloutGpus: 48,
  actorGpus: 16,
  seed: 1,
});

/** A line's shape: digits -> 9, hex/words kept coarse, so units and separators must match exactly. */
const shape = (l: string): string =>
  l
    .replace(/GPU-[0-9a-f-]+/g, 'UUID')
    .replace(/NVIDIA [^,]+/g, 'NAME')
    .replace(/\d+(\.\d+)?/g, (m) => (m.includes('.') ? '9.9' : '9'));

describe('fake nvidia-smi output format', () => {
  const gpus = snapshot(state('ppo_update'), 6, NOW);

  it('prints the same header as the real one, aliases and units included', () => {
    const r = answer([`--query-gpu=${FIELDS}`, '--format=csv'], gpus, NOW);
    expect(r.code).toBe(0);
    const [header, row] = r.stdout.split('\n');
    expect(header).toBe(fixture('smi-query-header.csv').split('\n')[0]);
    expect(shape(row)).toBe(shape(fixture('smi-query-header.csv').split('\n')[1]));
  });

  it('noheader,nounits rows have the real shape; both forms parse to the same numbers', () => {
    const plain = answer([`--query-gpu=${FIELDS}`, '--format=csv,noheader,nounits'], gpus, NOW);
    expect(shape(plain.stdout.split('\n')[0])).toBe(shape(fixture('smi-query-nounits.csv').split('\n')[0]));
    const fields = FIELDS.split(',');
    const a = parseSmiCsv(plain.stdout, { fields, header: false });
    const b = parseSmiCsv(answer([`--query-gpu=${FIELDS}`, '--format=csv'], gpus, NOW).stdout, { fields });
    expect(a.rows).toEqual(b.rows);
    expect(a.rows).toHaveLength(8);
    const realShape = parseSmiCsv(fixture('smi-query-nounits.csv'), { fields, header: false }).rows[0];
    for (const f of fields) expect(typeof a.rows[0][f], f).toBe(typeof realShape[f]);
  });

  it('an unknown field gives the real message and exit code 2, which the parser reports', () => {
    const r = answer(['--query-gpu=index,bogus.field', '--format=csv'], gpus, NOW);
    expect(r.code).toBe(2);
    expect(r.stdout.trim()).toBe(fixture('smi-bad-field.txt').split('\n')[0]);
    expect(() => parseSmiCsv(r.stdout)).toThrow(NvidiaSmiError);
  });

  it('compute apps: a header only when idle, like the real one; rows with the trainer running', () => {
    const idle = answer(
      ['--query-compute-apps=pid,process_name,used_memory', '--format=csv'],
      snapshot(null, 0, NOW),
      NOW,
    );
    expect(idle.stdout).toBe(fixture('apps-idle.csv'));
    const busy = answer(
      ['--query-compute-apps=timestamp,pid,process_name,used_memory,gpu_uuid', '--format=csv,noheader,nounits'],
      gpus,
      NOW,
    );
    const lines = busy.stdout.trim().split('\n');
    expect(lines).toHaveLength(8);
    const real = fixture('ramp-smi.csv')
      .split('\n')
      .find((l) => l.split(', ').length === 5)!;
    const noName = (l: string): string =>
      shape(l)
        .split(', ')
        .map((c, i) => (i === 2 ? 'P' : c))
        .join(', ');
    expect(noName(lines[0])).toBe(noName(real));
  });
});

describe('fake nvidia-smi memory follows the simulated phase', () => {
  const used = (phase: SimState['phase'] | null, node: number): number[] =>
    parseSmiCsv(
      answer(
        ['--query-gpu=index,name,memory.used,memory.total,utilization.gpu', '--format=csv,noheader,nounits'],
        snapshot(phase ? state(phase) : null, node, NOW),
        NOW,
      ).stdout,
      {
        fields: ['index', 'name', 'memory.used', 'memory.total', 'utilization.gpu'],
      },
    ).rows.map((r) => r['memory.used'] as number);

  it('actor GPUs grow in the PPO update and drop when the run ends; rollout GPUs hold SGLang memory', () => {
    const actorNode = 6;
    const wait = used('rollout_wait', actorNode);
    const ppo = used('ppo_update', actorNode);
    for (let i = 0; i < 8; i++) expect(ppo[i]).toBeGreaterThan(wait[i] + 5000);
    expect(Math.max(...ppo)).toBeLessThan(H100_TOTAL_MIB);
    expect(used('finished', actorNode)).toEqual(Array(8).fill(0));
    expect(used(null, actorNode)).toEqual(Array(8).fill(0));
    const rollout = used('ppo_update', 0);
    for (const m of rollout) expect(m).toBeGreaterThan(0.7 * H100_TOTAL_MIB);
  });
});
