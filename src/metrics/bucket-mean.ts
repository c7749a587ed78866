// Downsampling a series to a number of buckets: pure, shared by the session's series and the charts.

/** Mean per bucket, ignoring NaN/null; a bucket without a finite value is NaN. */
export function bucketMean(values: ArrayLike<number | null>, buckets: number): number[] {
  const n = values.length;
  if (buckets <= 0 || n === 0) return [];
  if (n <= buckets) return Array.from({ length: n }, (_, i) => toNum(values[i]));
  const out = new Array<number>(buckets);
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * n) / buckets);
    const to = Math.floor(((b + 1) * n) / buckets);
    let sum = 0;
    let count = 0;
    for (let i = from; i < to; i++) {
      const v = toNum(values[i]);
      if (Number.isFinite(v)) {
        sum += v;
        count++;
      }
    }
    out[b] = count ? sum / count : NaN;
  }
  return out;
}

export function toNum(v: number | null | undefined): number {
  return v === null || v === undefined ? NaN : v;
}
