// Bounded sample windows: the cockpit watches runs for days, so every statistic keeps at most a fixed
// number of recent samples. "Median in this run" is therefore the median of the most recent N, which
// is what a user means anyway once a run has changed speed.

export class RecentWindow {
  private readonly buf: number[] = [];
  private next = 0;
  /** The same samples kept in ascending order: the rules ask for the median at every record and a
   *  sort of 256 samples each time was a large part of a watch's CPU; a binary search and a short
   *  move per push keep the median O(1). */
  private readonly sorted: number[] = [];
  /** Samples that are -0 (none, in practice): only then can a zero median's sign need the reference. */
  private negativeZeros = 0;

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.buf.length;
  }

  push(v: number): void {
    if (!Number.isFinite(v)) return;
    if (this.buf.length < this.capacity) this.buf.push(v);
    else {
      const old = this.buf[this.next];
      if (Object.is(old, -0)) this.negativeZeros--;
      this.buf[this.next] = v;
      this.next = (this.next + 1) % this.capacity;
      this.sorted.splice(lowerBound(this.sorted, old), 1);
    }
    // Zeros go in as +0 (a -0 is counted instead): which zero an index holds never matters then.
    if (Object.is(v, -0)) this.negativeZeros++;
    this.sorted.splice(lowerBound(this.sorted, v), 0, v === 0 ? 0 : v);
  }

  median(): number | null {
    const s = this.sorted;
    if (s.length === 0) return null;
    const mid = s.length >> 1;
    const m = s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
    // 0 and -0 sort as equal, so with a -0 among the samples which zero stands in the middle
    // depends on where they sit in the ring: the reference decides.
    return m === 0 && this.negativeZeros > 0 ? median(this.buf) : m;
  }

  clear(): void {
    this.buf.length = 0;
    this.sorted.length = 0;
    this.negativeZeros = 0;
    this.next = 0;
  }
}

/** The first index whose value is not below `v` (values finite, ascending). */
function lowerBound(s: readonly number[], v: number): number {
  let lo = 0;
  let hi = s.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Up to this many values are sorted by insertion (the drift rule's 20-step windows, at every step):
 *  no comparator calls, and no array beyond one reused scratch. */
const SMALL = 64;
const scratch: number[] = [];

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  if (values.length <= SMALL) {
    const m = smallMedian(values);
    if (m !== undefined) return m;
  }
  return sortedMedian(values);
}

/** The reference: a stable sort by `a - b`. */
export function sortedMedian(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The median of finite values by a stable insertion sort: the same order a stable sort by `a - b`
 *  gives (equal values, 0 and -0 among them, keep their order). undefined: a value is not finite
 *  (the comparator is no order then: the reference decides). */
function smallMedian(values: readonly number[]): number | undefined {
  const s = scratch;
  s.length = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) return undefined;
    let j = i - 1;
    while (j >= 0 && s[j] > v) {
      s[j + 1] = s[j];
      j--;
    }
    s[j + 1] = v;
  }
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
