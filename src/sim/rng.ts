// A small seeded PRNG: the same seed gives the same run, so tests and demos are reproducible. Pure.

/** mulberry32: 32-bit state, good enough for noise in a simulator. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Derive an independent stream, e.g. per (seed, step, attempt). */
  static of(...parts: number[]): Rng {
    let h = 2166136261;
    for (const p of parts) {
      h ^= p >>> 0;
      h = Math.imul(h, 16777619);
      h ^= h >>> 13;
    }
    return new Rng(h);
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }
  int(lo: number, hi: number): number {
    return Math.floor(this.uniform(lo, hi + 1));
  }
  /** Standard normal (Box–Muller). */
  normal(mean = 0, sd = 1): number {
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
