// A terminal in-process (@xterm/headless): what a test reads is the terminal's buffer after the
// painter's bytes, as a person would see it, not the lines the cockpit meant to draw. Cell widths
// are string-width's (a Unicode 11+ terminal: 🚀 ✅ 👍🏽 take two cells), so a row the cockpit
// measured wrong wraps here as it would in a real terminal.
import xterm from '@xterm/headless';
import stringWidth from 'string-width';

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

// xterm's property value: (state << 3) | (width << 1) | shouldJoin (UnicodeService.createPropertyValue).
function charProperties(wcwidth: (cp: number) => 0 | 1 | 2, cp: number, preceding: number): number {
  let width = wcwidth(cp);
  const precedingWidth = (preceding >> 1) & 3;
  let join = width === 0 && preceding !== 0 && precedingWidth !== 0;
  if (join && precedingWidth > width) width = precedingWidth as 0 | 1 | 2;
  // A skin-tone modifier joins the emoji before it (👍🏽 is one two-cell character).
  if (cp >= 0x1f3fb && cp <= 0x1f3ff && preceding !== 0) {
    join = true;
    width = precedingWidth as 0 | 1 | 2;
  }
  return (width << 1) | (join ? 1 : 0);
}

function wcwidth(cp: number): 0 | 1 | 2 {
  if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x1f3fb && cp <= 0x1f3ff)) return 0;
  const w = stringWidth(String.fromCodePoint(cp));
  return w >= 2 ? 2 : w === 1 ? 1 : 0;
}

export class XtermScreen {
  readonly term: Term;
  private pending: Promise<void> = Promise.resolve();
  /** Every byte written, for byte counts. */
  written = 0;

  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {
    this.term = new Terminal({ cols: columns, rows, allowProposedApi: true, scrollback: 0, logLevel: 'off' });
    this.term.unicode.register({
      version: 'string-width',
      wcwidth,
      charProperties: (cp, p) => charProperties(wcwidth, cp, p),
    });
    this.term.unicode.activeVersion = 'string-width';
  }

  /** A painter's output: queued in order; `settled()` waits until the terminal has parsed it. */
  write(s: string): void {
    this.written += Buffer.byteLength(s);
    this.pending = this.pending.then(() => new Promise<void>((res) => this.term.write(s, res)));
  }

  settled(): Promise<void> {
    return this.pending;
  }

  resize(columns: number, rows: number): void {
    this.pending = this.pending.then(() => this.term.resize(columns, rows));
  }

  /** The rows as text, trailing blanks of each row trimmed. */
  lines(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let i = 0; i < this.term.rows; i++) out.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
    return out;
  }

  /** The screen as one string, trailing blank rows dropped (what a test compares). */
  text(): string {
    const l = this.lines();
    while (l.length && l[l.length - 1] === '') l.pop();
    return l.join('\n');
  }

  /** Whether the cell at (row, column), both from 0, is drawn bold / inverse / in a colour. */
  cell(row: number, col: number): { chars: string; bold: boolean; inverse: boolean; fg: number } {
    const c = this.term.buffer.active.getLine(row)!.getCell(col)!;
    return {
      chars: c.getChars(),
      bold: c.isBold() !== 0,
      inverse: c.isInverse() !== 0,
      fg: c.isFgDefault() ? -1 : c.getFgColor(),
    };
  }

  /** The OSC 8 link of the cell at (row, column), both from 0, as xterm parsed it (null: none).
   *  @xterm/headless has no public link API (the browser build's linkHandler needs a DOM): the cell's
   *  urlId and the OscLinkService that registered it are xterm's own, read as they are. */
  linkAt(row: number, col: number): string | null {
    const cell = this.term.buffer.active.getLine(row)?.getCell(col) as unknown as
      { extended?: { urlId?: number } } | undefined;
    const id = cell?.extended?.urlId ?? 0;
    if (id === 0) return null;
    const core = (this.term as unknown as { _core: { _oscLinkService: { getLinkData(id: number): { uri: string } } } })
      ._core;
    return core._oscLinkService.getLinkData(id)?.uri ?? null;
  }

  /** Write and parse at once (a test that draws one frame and reads it in the same tick). */
  writeNow(s: string): void {
    this.written += Buffer.byteLength(s);
    (this.term as unknown as { _core: { writeSync(d: string): void } })._core.writeSync(s);
  }

  /** The palette colours (0-15) the characters of row `row` are drawn in; -1 for the default. */
  rowColors(row: number): Set<number> {
    const line = this.term.buffer.active.getLine(row)!;
    const out = new Set<number>();
    for (let x = 0; x < this.term.cols; x++) {
      const c = line.getCell(x)!;
      if (c.getChars().trim()) out.add(c.isFgDefault() ? -1 : c.getFgColor());
    }
    return out;
  }

  dispose(): void {
    this.term.dispose();
  }
}
