// TrainerLogReader, the one pure reader of a followed log: the parser's events with the checkpoint
// saves among them in log order, and the log pane's cleaned lines, from one push per chunk. It
// gives what the scanners it replaced gave (src/health save-records, src/ui/session trainer-lines'
// own parsing: test/health/save-records.test.ts and test/ui/trainer-lines.test.ts assert those on
// it now), whatever the chunking.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { TrainerLogReader, parseLogBytes, type LogLine, type ReaderEvent } from '../../src/trainer-log/index.js';
import { TrainerLineRing } from '../../src/session/trainer-lines.js';
import { SHARED } from '../harness/fixtures.js';
import { exitLogs } from './exit-paths.js';

const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;
const FILES = ['main.log', 'merged.log', 'stdout.log'];
/** The fixture's controller saves (what the save-records scanner found). */
const SAVES = [
  { type: 'save', time: '2026-05-25T13:02:18.087', step: 4, what: 'HF + DCP checkpoints (periodic (1200s), step=4)' },
  { type: 'save', time: '2026-05-25T16:18:39.120', step: 9, what: 'HF + DCP checkpoints (periodic (1200s), step=9)' },
];

function read(buf: Uint8Array, chunk: number) {
  const r = new TrainerLogReader();
  const events: ReaderEvent[] = [];
  const lines: LogLine[] = [];
  for (let at = 0; at < buf.length; at += chunk) {
    const out = r.push(buf.subarray(at, at + chunk));
    events.push(...out.events);
    lines.push(...out.lines);
  }
  const out = r.end();
  events.push(...out.events);
  lines.push(...out.lines);
  return { events, lines };
}

describe.each(FILES)('TrainerLogReader on run-a %s', (file) => {
  const buf = readFileSync(RUN_A + file);
  const whole = read(buf, buf.length);

  it("gives the parser's events, and the same saves as the save-records scanner", () => {
    expect(whole.events.filter((e) => e.type !== 'save')).toEqual(parseLogBytes(buf));
    const saves = whole.events.filter((e) => e.type === 'save');
    expect(saves).toEqual(SAVES);
    expect(saves.map((s) => s.type === 'save' && s.step)).toEqual([4, 9]);
  });

  it('puts each save in log order: after the record before it, before the step it belongs to', () => {
    const evs = whole.events;
    const i = evs.findIndex((e) => e.type === 'save');
    expect(evs[i - 1]).toMatchObject({ type: 'memory', phase: 'ppo update' });
    expect(evs[i + 1]).toMatchObject({ type: 'step', globalStep: 5 });
  });

  it("gives the log pane's lines, tables collapsed, which trainer-lines.ts keeps as they are", () => {
    const ring = new TrainerLineRing(100_000);
    ring.add(whole.lines);
    const kept = ring.view().lines.map(({ seq: _s, ...l }) => l);
    expect(kept).toEqual(whole.lines);
    expect(whole.lines.filter((l) => l.kind === 'table')).toHaveLength(12);
    expect(whole.lines.find((l) => l.kind === 'table')?.text).toBe('  [stats table: 160 keys]');
  });

  it('gives the same events and lines in any chunking', () => {
    for (const chunk of [1 << 12, 977, 65_537]) expect(read(buf, chunk)).toEqual(whole);
  });
});

describe('TrainerLogReader', () => {
  it('marks the lines of a crash as errors and holds the end record like the parser', () => {
    const { events, lines } = read(Buffer.from(exitLogs('asyncwebrl', 'oom').stdout), 300);
    expect(events.map((e) => e.type)).not.toContain('finished');
    expect(lines.filter((l) => l.text.startsWith('torch.OutOfMemoryError')).map((l) => l.level)).toEqual(['error']);
  });

  it('a table cut by the end of the input is said so', () => {
    const log = readFileSync(RUN_A + 'main.log', 'utf8');
    const cut = log.slice(0, log.indexOf('│ ppo_actor/advantages/max'));
    const { lines } = read(Buffer.from(cut), 1 << 16);
    expect(lines.at(-1)).toMatchObject({
      kind: 'table',
      text: expect.stringMatching(/^ {2}\[stats table, cut: \d+ keys seen\]$/),
    });
  });
});
