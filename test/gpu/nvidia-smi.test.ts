import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { NvidiaSmiError, parseSmiCsv, smiValue } from '../../src/gpu/index.js';
import { SHARED } from '../harness/fixtures.js';

const DIR = `${SHARED}fixtures/nvidia-smi/`;
const read = (f: string) => readFileSync(DIR + f, 'utf8');
const QUERY =
  'index,uuid,name,memory.used,memory.total,memory.free,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,clocks.sm'.split(
    ',',
  );

describe('nvidia-smi CSV on the real H200 output', () => {
  it('reads the header form: units stripped, header names, units kept aside', () => {
    const t = parseSmiCsv(read('smi-query-header.csv'));
    expect(t.fields).toContain('clocks.current.sm');
    expect(t.units[t.fields.indexOf('memory.total')]).toBe('MiB');
    expect(t.rows).toHaveLength(1);
    expect(t.rows[0]).toMatchObject({
      index: 0,
      name: 'NVIDIA H200',
      'memory.used': 0,
      'memory.total': 143771,
      'power.draw': 78,
      'clocks.current.sm': 345,
      uuid: 'GPU-9150ffc6-2e83-1f2f-411e-97a7c419a97e',
    });
  });

  it('keys rows by the query fields when given, header or not, units or not', () => {
    const withHeader = parseSmiCsv(read('smi-query-header.csv'), { fields: QUERY });
    const bare = parseSmiCsv(read('smi-query-nounits.csv'), { fields: QUERY });
    expect(bare.rows[0]).toMatchObject({
      'clocks.sm': 345,
      'memory.total': 143771,
      'memory.free': 143156,
      'temperature.gpu': 39,
      'power.limit': 700,
    });
    expect(withHeader.rows[0]['clocks.sm']).toBe(345);
    expect(bare.rows[0]['power.draw']).toBe(78.01);
  });

  it('reads a compute-apps header with no process as no rows', () => {
    const t = parseSmiCsv(read('apps-idle.csv'));
    expect(t.fields).toEqual(['pid', 'process_name', 'used_gpu_memory']);
    expect(t.rows).toEqual([]);
  });

  it('turns the unknown-field answer into an error naming the field', () => {
    expect(() => parseSmiCsv(read('smi-bad-field.txt'))).toThrowError(NvidiaSmiError);
    try {
      parseSmiCsv(read('smi-bad-field.txt'));
    } catch (e) {
      expect((e as NvidiaSmiError).field).toBe('bogus.field');
      expect((e as Error).message).toContain('"bogus.field"');
    }
  });

  it('maps [N/A] and [Not Supported] to null', () => {
    expect(smiValue('[N/A]')).toBeNull();
    expect(smiValue('[Not Supported]')).toBeNull();
    expect(smiValue('N/A')).toBeNull();
    const t = parseSmiCsv('0, NVIDIA H200, [N/A], 143771 MiB, [Not Supported]\n', {
      fields: ['index', 'name', 'memory.used', 'memory.total', 'utilization.gpu'],
    });
    expect(t.rows[0]).toEqual({
      index: 0,
      name: 'NVIDIA H200',
      'memory.used': null,
      'memory.total': 143771,
      'utilization.gpu': null,
    });
  });

  it('follows the ramp to 96 GiB and back in the interleaved trace', () => {
    const gpu = ['timestamp', 'index', 'memory.used', 'memory.total', 'utilization.gpu', 'power.draw'];
    const apps = ['timestamp', 'pid', 'process_name', 'used_memory', 'gpu_uuid'];
    const lines = read('ramp-smi.csv').trim().split('\n');
    const gpuRows = parseSmiCsv(lines.filter((l) => !l.includes('GPU-')).join('\n'), {
      fields: gpu,
      header: false,
    }).rows;
    const appRows = parseSmiCsv(lines.filter((l) => l.includes('GPU-')).join('\n'), {
      fields: apps,
      header: false,
    }).rows;
    const used = gpuRows.map((r) => r['memory.used'] as number);
    const peak = Math.max(...used);
    expect(peak).toBeGreaterThan(96 * 1024);
    expect(peak).toBeLessThan(143771);
    expect(used[used.length - 1]).toBeLessThan(peak);
    expect(gpuRows.every((r) => r['memory.total'] === 143771 && typeof r.timestamp === 'string')).toBe(true);
    expect(appRows[0]).toMatchObject({ pid: 450, process_name: 'python3', used_memory: 9068 });
  });
});
