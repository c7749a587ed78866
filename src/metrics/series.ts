// One metric over train steps, in constant memory. Points are buckets [stepLo, stepHi] holding
// the last, min and max value; while fewer than `capacity` steps have arrived each bucket is one
// step. When full, neighbouring buckets are merged pairwise and every later bucket takes twice
// as many steps: the chart keeps its shape (min/max survive) at half the resolution.
// A short ring of the latest raw values serves the alert rules ("0 for 3 steps").
// Values: a number, NaN (the trainer printed nan), ±Infinity (inf, -inf) or null (the cell held no
// number): each is kept as it came. min/max are over the finite values only.

export interface SeriesView {
  steps: number[];
  values: (number | null)[];
}

export interface DownsampledView {
  steps: number[];
  min: (number | null)[];
  max: (number | null)[];
  last: (number | null)[];
}

const RECENT = 16;

export class Series {
  private readonly lo: Float64Array;
  private readonly hi: Float64Array;
  private readonly last: Float64Array;
  private readonly mn: Float64Array;
  private readonly mx: Float64Array;
  private readonly cnt: Uint32Array;
  /** 1 where a bucket's last value is null (no number), as NaN already means nan. Made at the
   *  first null (rare: a cell of text), so a series of numbers pays nothing for it. */
  private lastNone: Uint8Array | null = null;
  private n = 0;
  /** Steps per bucket for new buckets (doubles at each compaction). */
  private span = 1;
  private readonly rSteps = new Float64Array(RECENT);
  private readonly rVals = new Float64Array(RECENT);
  private rNone: Uint8Array | null = null;
  private rLen = 0;
  private rAt = 0;

  constructor(private readonly capacity = 1024) {
    if (capacity < 4 || capacity % 2) throw new Error('capacity must be an even number >= 4');
    this.lo = new Float64Array(capacity);
    this.hi = new Float64Array(capacity);
    this.last = new Float64Array(capacity);
    this.mn = new Float64Array(capacity);
    this.mx = new Float64Array(capacity);
    this.cnt = new Uint32Array(capacity);
  }

  get length(): number {
    return this.n;
  }

  /** Adds the value of `step`; a step at or before the last one replaces what came from there on
   *  (the trainer resumed from an older checkpoint and the later values stand). */
  push(step: number, value: number | null): void {
    const none = value === null;
    const v = value === null ? Number.NaN : value;
    if (this.n > 0 && step <= this.hi[this.n - 1]) this.rewind(step);
    this.pushRecent(step, v, none);
    const i = this.n - 1;
    if (i >= 0 && this.cnt[i] < this.span) {
      this.hi[i] = step;
      this.last[i] = v;
      if (none || this.lastNone !== null) this.setLastNone(i, none);
      if (Number.isFinite(v)) {
        if (!(v >= this.mn[i])) this.mn[i] = v;
        if (!(v <= this.mx[i])) this.mx[i] = v;
      }
      this.cnt[i]++;
      return;
    }
    if (this.n === this.capacity) this.compact();
    const j = this.n++;
    this.lo[j] = step;
    this.hi[j] = step;
    this.last[j] = v;
    if (none || this.lastNone !== null) this.setLastNone(j, none);
    this.mn[j] = Number.isFinite(v) ? v : Number.NaN;
    this.mx[j] = Number.isFinite(v) ? v : Number.NaN;
    this.cnt[j] = 1;
  }

  /** The latest value as it came (NaN for nan, ±Infinity); null when it held no number or
   *  nothing arrived. */
  latest(): number | null {
    if (this.n === 0) return null;
    return this.lastOf(this.n - 1);
  }

  private lastOf(i: number): number | null {
    return this.lastNone !== null && this.lastNone[i] === 1 ? null : this.last[i];
  }

  private setLastNone(i: number, none: boolean): void {
    (this.lastNone ??= new Uint8Array(this.capacity))[i] = none ? 1 : 0;
  }

  latestStep(): number | null {
    return this.n === 0 ? null : this.hi[this.n - 1];
  }

  /** Up to `count` latest raw values, oldest first. */
  recent(count = RECENT): { steps: number[]; values: (number | null)[] } {
    const k = Math.min(count, this.rLen);
    const steps: number[] = [];
    const values: (number | null)[] = [];
    for (let i = this.rLen - k; i < this.rLen; i++) {
      const at = (this.rAt - this.rLen + i + RECENT) % RECENT;
      steps.push(this.rSteps[at]);
      values.push(this.rNone !== null && this.rNone[at] === 1 ? null : this.rVals[at]);
    }
    return { steps, values };
  }

  view(): SeriesView {
    const steps: number[] = [];
    const values: (number | null)[] = [];
    for (let i = 0; i < this.n; i++) {
      steps.push(this.hi[i]);
      values.push(this.lastOf(i));
    }
    return { steps, values };
  }

  /** At most `buckets` points, each with the min and max of the finite values it covers (the
   *  shape of spikes survives; null when none is finite) and its last value as it came. */
  downsample(buckets: number): DownsampledView {
    const out: DownsampledView = { steps: [], min: [], max: [], last: [] };
    const b = Math.max(1, Math.floor(buckets));
    const n = this.n;
    for (let k = 0; k < Math.min(b, n); k++) {
      const from = Math.floor((k * n) / Math.min(b, n));
      const to = Math.floor(((k + 1) * n) / Math.min(b, n));
      let mn = Number.NaN;
      let mx = Number.NaN;
      for (let i = from; i < to; i++) {
        if (!(this.mn[i] >= mn)) mn = Number.isNaN(this.mn[i]) ? mn : this.mn[i];
        if (!(this.mx[i] <= mx)) mx = Number.isNaN(this.mx[i]) ? mx : this.mx[i];
      }
      out.steps.push(this.hi[to - 1]);
      out.min.push(Number.isNaN(mn) ? null : mn);
      out.max.push(Number.isNaN(mx) ? null : mx);
      out.last.push(this.lastOf(to - 1));
    }
    return out;
  }

  private pushRecent(step: number, v: number, none: boolean): void {
    this.rSteps[this.rAt] = step;
    this.rVals[this.rAt] = v;
    if (none || this.rNone !== null) (this.rNone ??= new Uint8Array(RECENT))[this.rAt] = none ? 1 : 0;
    this.rAt = (this.rAt + 1) % RECENT;
    if (this.rLen < RECENT) this.rLen++;
  }

  private rewind(step: number): void {
    while (this.n > 0 && this.lo[this.n - 1] >= step) this.n--;
    // A merged bucket that straddles the resume point goes too: its last/min/max include replaced
    // steps that cannot be taken out (a pre-crash spike would stay in the chart). That loses at
    // most span-1 older steps from the chart; the replacements follow.
    if (this.n > 0 && this.hi[this.n - 1] >= step) this.n--;
    while (this.rLen > 0 && this.rSteps[(this.rAt - 1 + RECENT) % RECENT] >= step) {
      this.rAt = (this.rAt - 1 + RECENT) % RECENT;
      this.rLen--;
    }
  }

  private compact(): void {
    const half = this.n >> 1;
    for (let i = 0; i < half; i++) {
      const a = 2 * i;
      const b = a + 1;
      this.lo[i] = this.lo[a];
      this.hi[i] = this.hi[b];
      this.last[i] = this.last[b];
      if (this.lastNone !== null) this.lastNone[i] = this.lastNone[b];
      this.mn[i] = minNaN(this.mn[a], this.mn[b]);
      this.mx[i] = maxNaN(this.mx[a], this.mx[b]);
      this.cnt[i] = this.cnt[a] + this.cnt[b];
    }
    this.n = half;
    this.span *= 2;
  }
}

function minNaN(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return a < b ? a : b;
}

function maxNaN(a: number, b: number): number {
  if (Number.isNaN(a)) return b;
  if (Number.isNaN(b)) return a;
  return a > b ? a : b;
}
