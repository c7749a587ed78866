// Bounded sample windows: the cockpit watches runs for days, so every statistic keeps at most a fixed
// number of recent samples. "Median in this run" is therefore the median of the most recent N, which
// is what a user means anyway once a run has changed speed.

export class RecentWindow {
  private readonly buf: number[] = [];
  private next = 0;
  /** The median until the next push: the rules ask for it at every observation (twice per record
   *  in a backfill), and a sort of 256 samples each time was most of a backfill's cost. */
  private cachedMedian: number | null | undefined;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.buf.length;
  }

  push(v: number): void {
    if (!Number.isFinite(v)) return;
    this.cachedMedian = undefined;
    if (this.buf.length < this.capacity) this.buf.push(v);
    else {
      this.buf[this.next] = v;
      this.next = (this.next + 1) % this.capacity;
    }
  }

  median(): number | null {
    if (this.cachedMedian === undefined) this.cachedMedian = median(this.buf);
    return this.cachedMedian;
  }

  clear(): void {
    this.cachedMedian = undefined;
    this.buf.length = 0;
    this.next = 0;
  }
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
