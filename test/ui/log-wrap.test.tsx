/** @jsxRuntime classic */
// Long log lines: `w` wraps them onto more rows (every character kept, no row wider than the pane,
// counted in terminal cells: CJK and emoji take two) instead of cutting them with '…'.
import React from 'react';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { BINDINGS } from '../../src/ui/bindings.js';
import { lineText } from '../../src/ui/lines.js';
import { logLines, trainerLogLines } from '../../src/ui/panels/log.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { StaticSession } from '../../src/session/static-session.js';
import { PaneLines } from './pane-lines.js';
import type { LogLine, TrainerLinesView } from '../../src/session/types.js';
import { textCells, wrapCells } from '../../src/ui/text-width.js';
import { renderInk, waitForFrame } from './helpers.js';

const NOW = Date.parse('2026-05-25T17:00:00');
const LONG =
  'RolloutController INFO: prepare_batch/rollout: ' +
  Array.from({ length: 30 }, (_, i) => `key_${i}=value_${i}`).join(', ') +
  ' THE-END';
const CJK = '任务完成'.repeat(20) + '🙂 done';

function ringOf(...lines: string[]): TrainerLinesView {
  const r = new PaneLines();
  r.push(Buffer.from(lines.map((l) => l + '\n').join('')));
  return r.view();
}

/** The text of wrapped rows joined back (continuation rows start with the 2-space indent). */
function unwrap(rows: string[]): string {
  return rows.map((r, i) => (i === 0 ? r : r.slice(2))).join('');
}

describe('wrapCells', () => {
  it('keeps every character and no piece is wider than its width (in cells)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '任', '🙂', 'é', '-'), maxLength: 400 }),
        fc.integer({ min: 2, max: 80 }),
        fc.integer({ min: 2, max: 80 }),
        (text, first, rest) => {
          const parts = wrapCells(text, first, rest);
          expect(parts.join('')).toBe(text);
          parts.forEach((p, i) => expect(textCells(p)).toBeLessThanOrEqual(i === 0 ? first : rest));
        },
      ),
      { numRuns: 300 },
    );
  });
  it('breaks at a space near the end of a row rather than in a word', () => {
    expect(wrapCells('alpha beta gamma delta', 12)).toEqual(['alpha beta ', 'gamma delta']);
  });
});

describe('the trainer view, wrapped', () => {
  it('a long line takes as many rows as it needs, none wider than the pane; the title says wrap', () => {
    const view = ringOf('short line', LONG, CJK);
    for (const width of [60, 100]) {
      const lines = trainerLogLines({ view, problemsOnly: false, search: '', scroll: 0, wrap: true }, width, 40).map(
        lineText,
      );
      expect(lines[0]).toContain('· wrap');
      for (const l of lines) expect(textCells(l)).toBeLessThanOrEqual(width);
      const rows = lines.slice(1);
      const longAt = rows.findIndex((r) => r.startsWith('RolloutController'));
      const cjkAt = rows.findIndex((r) => r.startsWith('任务'));
      expect(unwrap(rows.slice(longAt, cjkAt))).toBe(LONG);
      expect(unwrap(rows.slice(cjkAt))).toBe(CJK);
    }
    // Cut, as before, without wrap.
    const cut = trainerLogLines({ view, problemsOnly: false, search: '', scroll: 0 }, 60, 40).map(lineText);
    expect(cut.some((l) => l.endsWith('…'))).toBe(true);
    expect(cut.join('\n')).not.toContain('THE-END');
  });

  it('a short pane shows the newest rows; the scroll still counts lines (one up shows the line before)', () => {
    const view = ringOf('first', LONG, 'last');
    const bottom = trainerLogLines({ view, problemsOnly: false, search: '', scroll: 0, wrap: true }, 60, 4).map(
      lineText,
    );
    expect(bottom).toHaveLength(4);
    expect(bottom.at(-1)).toBe('last');
    expect(bottom.at(-2)).toContain('THE-END');
    const up = trainerLogLines({ view, problemsOnly: false, search: '', scroll: 1, wrap: true }, 60, 4).map(lineText);
    expect(up.at(-1)).toContain('THE-END');
    // Scrolled past the oldest: a full page from the oldest line.
    const top = trainerLogLines({ view, problemsOnly: false, search: '', scroll: 50, wrap: true }, 60, 4).map(lineText);
    expect(top[1]).toBe('first');
    expect(top).toHaveLength(4);
  });
});

describe('the event view, wrapped', () => {
  it('time on the first row, the rest of the line below, none wider than the pane', () => {
    const lines: LogLine[] = [
      { seq: 1, level: 'warning', time: '2026-05-25T12:19:55.952', source: 'rollout', text: LONG },
    ];
    const out = logLines({ lines, showAll: true, search: '', scroll: 0, wrap: true }, 70, 20).map(lineText);
    for (const l of out) expect(l.length).toBeLessThanOrEqual(70);
    expect(out[1].startsWith('12:19:55 [rollout] RolloutController')).toBe(true);
    expect(unwrap(out.slice(1)).slice(9)).toBe(`[rollout] ${LONG}`);
  });
});

describe('w in the cockpit', () => {
  it('is in the help and the footer; toggles wrapping on the dashboard', async () => {
    expect(BINDINGS.some((b) => b.keys.includes('w') && b.scopes.includes('dashboard'))).toBe(true);
    const run = { ...sampleRunView({ steps: 50, now: NOW }), trainerLines: ringOf('short line', LONG) };
    const s = new StaticSession({ run, selectedRunId: run.summary.id });
    const r = renderInk(
      <App session={s} initialScreen="dashboard" size={{ columns: 140, rows: 45 }} colors={false} clock={() => NOW} />,
    );
    try {
      const before = await waitForFrame(r, (x) => x.includes('─ Log'), 'the dashboard');
      expect(before).toContain('w wrap long lines');
      expect(before).not.toContain('THE-END');
      r.stdin.write('w');
      const wrapped = await waitForFrame(r, (x) => x.includes('THE-END'), 'the wrapped line');
      expect(wrapped).toContain('· wrap');
      expect(wrapped).toContain('w cut long lines');
      for (const l of wrapped.split('\n')) expect(textCells(l)).toBeLessThanOrEqual(140);
      r.stdin.write('w');
      await waitForFrame(r, (x) => !x.includes('THE-END') && x.includes('w wrap long lines'), 'cut again');
    } finally {
      r.unmount();
    }
  });
});
