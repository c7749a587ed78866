// A SeriesSource over plain arrays: for tests, benchmarks and the panels' stories. Bounded by
// `capacity` steps (oldest dropped) so a long demo cannot grow without limit. Row i is the step
// `firstStep + i` (plus the rows dropped): its points keep their x axis as the store's do.
import { bucketMean } from '../metrics/bucket-mean.js';
import type { SeriesPoints, SeriesSource } from './types.js';

export class ArraySeries implements SeriesSource {
  private readonly columns = new Map<string, (number | null)[]>();
  private steps = 0;
  /** The global step of the first row held (rows dropped by the capacity move it on). */
  private first: number;

  constructor(
    initial: Record<string, (number | null)[]> = {},
    private readonly capacity = 100_000,
    firstStep = 1,
  ) {
    this.first = firstStep;
    for (const [k, v] of Object.entries(initial)) {
      this.columns.set(k, [...v]);
      this.steps = Math.max(this.steps, v.length);
    }
  }

  get stepCount(): number {
    return this.steps;
  }

  /** Append one step's stats; keys missing in this step get null. */
  push(stats: Record<string, number | null>): void {
    for (const k of Object.keys(stats)) {
      if (!this.columns.has(k)) this.columns.set(k, new Array(this.steps).fill(null));
    }
    for (const [k, col] of this.columns) col.push(stats[k] ?? null);
    this.steps++;
    if (this.steps > this.capacity) {
      for (const col of this.columns.values()) col.shift();
      this.steps--;
      this.first++;
    }
  }

  keys(): string[] {
    return [...this.columns.keys()];
  }

  /** Bucket means, each at its bucket's last step (as MetricsStore's downsample). */
  downsample(key: string, buckets: number): SeriesPoints {
    const col = this.columns.get(key);
    if (!col) return { steps: [], values: [] };
    const values = bucketMean(col, buckets);
    const n = col.length;
    const steps = values.map((_, b) =>
      n <= buckets ? this.first + b : this.first + Math.floor(((b + 1) * n) / buckets) - 1,
    );
    return { steps, values };
  }

  /** The newest value that is a number, as it came (nan, inf, -inf included, as MetricsStore). */
  latest(key: string): number | null {
    const col = this.columns.get(key);
    if (!col) return null;
    for (let i = col.length - 1; i >= 0; i--) {
      const v = col[i];
      if (v !== null) return v;
    }
    return null;
  }
}
