// Client side of the follower's framed stdout (see FOLLOW_SCRIPT): header lines `S`, `R`, `D`,
// with `D` followed by exactly n file bytes. Pure: fed arbitrary chunks, emits parsed frames;
// data is emitted as it arrives (partial frames included) so latency does not wait for a whole frame.

export type Frame =
  | { kind: 'state'; inode: string; prefixLen: number; prefixHash: string }
  | { kind: 'reset'; reason: 'truncated' | 'replaced' | 'appeared' }
  | { kind: 'data'; offset: number; bytes: Buffer };

const MAX_HEADER = 256;

export class FrameParser {
  private header: Buffer[] = [];
  private headerLen = 0;
  /** Bytes still to come for the current D frame, and the offset of the next one. */
  private remaining = 0;
  private dataOffset = 0;

  constructor(private readonly emit: (f: Frame) => void) {}

  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, chunk.length - i);
        const bytes = chunk.subarray(i, i + n);
        const offset = this.dataOffset;
        this.remaining -= n;
        this.dataOffset += n;
        i += n;
        this.emit({ kind: 'data', offset, bytes });
        continue;
      }
      const nl = chunk.indexOf(0x0a, i);
      if (nl < 0) {
        this.header.push(chunk.subarray(i));
        this.headerLen += chunk.length - i;
        if (this.headerLen > MAX_HEADER) throw new Error('follower protocol error: header line too long');
        return;
      }
      this.header.push(chunk.subarray(i, nl));
      const line = Buffer.concat(this.header).toString('latin1');
      this.header = [];
      this.headerLen = 0;
      i = nl + 1;
      this.line(line);
    }
  }

  private line(line: string): void {
    const f = line.split(' ');
    if (f[0] === 'D' && f.length === 3) {
      this.dataOffset = Number(f[1]);
      this.remaining = Number(f[2]);
    } else if (f[0] === 'R' && (f[1] === 'truncated' || f[1] === 'replaced' || f[1] === 'appeared')) {
      this.emit({ kind: 'reset', reason: f[1] });
    } else if (f[0] === 'S' && f.length === 4) {
      this.emit({ kind: 'state', inode: f[1], prefixLen: Number(f[2]), prefixHash: f[3] });
    } else {
      throw new Error(`follower protocol error: unexpected line '${line.slice(0, 80)}'`);
    }
  }
}
