// QA pass 5: a line over the record cap is cut and said once: the warning names the writer
// whose line it was (merged.log role, Ray worker), not always the controller, and the record's
// time when the cut line starts a record.
import { describe, expect, it } from 'vitest';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { rec } from './helpers.js';

const T = '20260601-10:00:00.000';
const CAP = 4096;
const huge = (prefix: string) => prefix + rec(T, 'Foo', 'ERROR', 'x'.repeat(3 * CAP));

describe('a cut line', () => {
  it.each([
    ['[actor]   ', 'actor'],
    ['(RayRPCServer pid=48213, ip=10.0.0.9) ', 'ray'],
    ['', 'main'],
  ])('is said as record-truncated of its own writer (%s)', (prefix, source) => {
    const text = [huge(prefix), prefix + rec(T, 'Foo', 'INFO', 'next'), ''].join('\n');
    const evs = parseLogBytes(Buffer.from(text), { maxRecordBytes: CAP });
    const warnings = evs.filter((e) => e.type === 'warning' && e.kind === 'record-truncated');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ source, time: '2026-06-01T10:00:00.000' });
    // The error record itself is still there, from the same writer.
    expect(evs.filter((e) => e.type === 'error').map((e) => (e as { source?: string }).source ?? 'main')).toEqual([
      source,
    ]);
  });

  it('of a continuation (no header) has no time', () => {
    const text = [rec(T, 'Foo', 'ERROR', 'boom'), '[actor]   ' + 'y'.repeat(3 * CAP), ''].join('\n');
    const evs = parseLogBytes(Buffer.from(text), { maxRecordBytes: CAP });
    const w = evs.find((e) => e.type === 'warning' && e.kind === 'record-truncated');
    expect(w).toMatchObject({ source: 'actor', time: null });
  });
});
