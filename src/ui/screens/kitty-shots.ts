// A step's screenshot through kitty's graphics protocol with Unicode placeholders (src/images/kitty.ts):
// the image is transmitted once, outside any row, and placed by U+10EEEE cells whose foreground colour
// is its id. Those cells are ordinary text to the TerminalPainter: it may rewrite them on every frame
// (or after a resize's clear) and the image stays, since the terminal holds it by id.
//
// Pure: `lines()` draws a frame's placeholder cells and notes the image it needs; `end()` returns the
// bytes the cockpit writes before the frame: the previous image deleted (a=d), the new one sent.
// Nothing is sent for a frame that shows the same image, so a picture costs one transmission.
import { kittyPicture } from '../../images/render.js';
import { kittyDelete, kittyPlaceholderText } from '../../images/kitty.js';
import type { Line } from '../lines.js';
import type { ShotArea, ShotBytes } from './shot-lines.js';

interface Picture {
  key: string;
  id: number;
  lines: Line[];
  /** The transmission: '' once a problem (the lines then say it). */
  prelude: string;
}

/** Image ids are 24-bit (the foreground colour carries them); 0 is no id. */
const MAX_ID = 0xffffff;

export class KittyShots {
  private nextId: number;
  private last: Picture | null = null;
  private wanted: Picture | null = null;
  private shown: Picture | null = null;

  /** `firstId`: ids count up from it (another program's images in the same terminal use theirs). */
  constructor(
    private readonly tmux: boolean,
    firstId = 1 + Math.floor(Math.random() * (MAX_ID - 1)),
  ) {
    this.nextId = firstId;
  }

  /** A new frame: no image is needed until `lines` says so. */
  begin(): void {
    this.wanted = null;
  }

  /** The placeholder cells of a screenshot inside cols×rows (the caller handles fetching/failures). */
  lines(path: string, shot: ShotBytes & { ok: true }, a: ShotArea): Line[] {
    const key = [path, shot.bytes.length, a.cols, a.rows, a.click?.x, a.click?.y].join('\u0000');
    if (this.last?.key !== key) this.last = this.draw(key, shot.bytes, a);
    this.wanted = this.last.prelude ? this.last : null;
    return this.last.lines;
  }

  private draw(key: string, bytes: Buffer, a: ShotArea): Picture {
    const id = this.nextId;
    this.nextId = id >= MAX_ID ? 1 : id + 1;
    const p = kittyPicture(bytes, { cols: a.cols, rows: a.rows, click: a.click, id, tmux: this.tmux });
    if (!p.ok) return { key, id, prelude: '', lines: [[{ t: `[screenshot: ${p.why}]`, c: 'dim' }]] };
    const lines: Line[] = [];
    for (let r = 0; r < p.rows; r++) lines.push([{ t: kittyPlaceholderText(r, p.cols), fg: id }]);
    return { key, id, prelude: p.prelude, lines };
  }

  /** What to write before this frame: the image shown until now deleted if it is no longer
   *  drawn, the needed one transmitted if it is not yet. */
  end(): string {
    if (this.wanted === this.shown) return '';
    const out = (this.shown ? kittyDelete(this.shown.id, this.tmux) : '') + (this.wanted?.prelude ?? '');
    this.shown = this.wanted;
    return out;
  }

  /** The cockpit closes: the image shown is deleted. */
  close(): string {
    this.begin();
    return this.end();
  }
}
