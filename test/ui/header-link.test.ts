// The dashboard header's wandb URL as a terminal shows it: an OSC 8 link that xterm (@xterm/headless)
// parses back to the URL on exactly the URL's cells, where the cockpit writes links; the same text
// with no link where it does not (hyperlinksSupported said no: tmux before 3.4, unknown terminals);
// no link at 80 columns, where the URL does not fit whole (a cut URL is no link).
import { afterEach, describe, expect, it } from 'vitest';
import { frame } from '../../src/ui/cockpit.js';
import { initialUiState } from '../../src/ui/ui-state.js';
import { emptyState } from '../../src/session/static-session.js';
import { sampleRunView } from '../../src/session/sample-run.js';
import { lineToAnsi } from '../../src/ui/ansi.js';
import { TerminalPainter } from '../../src/ui/painter.js';
import { XtermScreen } from './xterm-screen.js';

const NOW = Date.parse('2026-05-25T14:00:00');
// A run URL as stats_logger.py makes it (`{exp}_{trial}_{suffix}`), for a short experiment name: the
// header shows it only where all of it fits after the step figures.
const WANDB_URL = 'https://wandb.ai/webgym/rl/runs/exp_trial0_2026_05_25_12_00_00';
let screen: XtermScreen | null = null;
afterEach(() => {
  screen?.dispose();
  screen = null;
});

/** The dashboard of a run whose log named its wandb run, painted with or without links. */
function paintDashboard(columns: number, rows: number, links: boolean): XtermScreen {
  const run = { ...sampleRunView({ steps: 3, now: NOW }), wandb: { url: WANDB_URL, from: 'log' as const } };
  const lines = frame(initialUiState('dashboard'), { ...emptyState(), run }, { columns, rows }, NOW, { colors: true });
  const s = new XtermScreen(columns, rows);
  new TerminalPainter({ write: (b: string) => s.writeNow(b) }).paint(
    lines.map((l) => lineToAnsi(l, true, links)),
    columns,
    rows,
  );
  return s;
}

/** Every linked cell of the screen: row, the columns it spans, its link. */
function links(s: XtermScreen): { row: number; from: number; to: number; uri: string }[] {
  const out: { row: number; from: number; to: number; uri: string }[] = [];
  for (let r = 0; r < s.rows; r++)
    for (let c = 0; c < s.columns; c++) {
      const uri = s.linkAt(r, c);
      if (uri === null) continue;
      const last = out.at(-1);
      if (last && last.row === r && last.to === c - 1 && last.uri === uri) last.to = c;
      else out.push({ row: r, from: c, to: c, uri });
    }
  return out;
}

describe("the dashboard header's wandb URL in a terminal", () => {
  it('at 200x50 with links: one OSC 8 link to the URL, on exactly the cells that show it', () => {
    screen = paintDashboard(200, 50, true);
    const found = links(screen);
    expect(found).toHaveLength(1);
    const [l] = found;
    expect(l.uri).toBe(WANDB_URL);
    const row = screen.lines()[l.row];
    expect(row.slice(l.from, l.to + 1)).toBe(WANDB_URL);
    expect(row.slice(0, l.from)).toMatch(/│ wandb $/);
    // The painter counted the link's escape bytes as no width: the row ends inside the screen.
    for (const r of screen.lines()) expect(r.length).toBeLessThanOrEqual(200);
  });

  it('at 200x50 without links (tmux 3.3, unknown terminals): the same row, no link on any cell', () => {
    const linked = paintDashboard(200, 50, true);
    screen = paintDashboard(200, 50, false);
    expect(links(screen)).toEqual([]);
    expect(screen.lines()).toEqual(linked.lines());
    expect(screen.text()).toContain(`wandb ${WANDB_URL}`);
    linked.dispose();
  });

  it('at 80x24: the URL does not fit the header whole, so no link and no cut URL there', () => {
    screen = paintDashboard(80, 24, true);
    expect(links(screen)).toEqual([]);
    expect(screen.lines()[1]).not.toContain('wandb');
  });
});
