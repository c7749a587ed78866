// TensorBoard's scalar smoothing (tensorflow/tensorboard#639, `classicSmoothing` in its line
// chart): a debiased exponential moving average, so `compare --smooth W` and the cockpit's `s`
// give the numbers TensorBoard shows for the same points and weight.
//   last = last·w + (1 − w)·y;  n = finite points so far;  smoothed = last / (1 − wⁿ)  (w = 1: last)
// As TensorBoard does: a non-finite point (nan, ±inf; here also null, a cell with no number) is
// given back as it is and does not enter the average; a series whose points all equal the first
// is given back unsmoothed (#786); a weight outside [0, 1] is clamped, a non-finite one is 0.

export function tensorboardEma(values: readonly (number | null)[], weight: number): (number | null)[] {
  const w = Number.isFinite(weight) ? Math.max(0, Math.min(1, weight)) : 0;
  const first = values[0];
  // TensorBoard compares with ==: NaN equals nothing, so a series holding a nan is never constant.
  if (values.every((v) => v === first && !(typeof v === 'number' && Number.isNaN(v)))) return [...values];
  let last = 0;
  let n = 0;
  return values.map((y) => {
    if (y === null || !Number.isFinite(y)) return y;
    last = last * w + (1 - w) * y;
    n++;
    return w === 1 ? last : last / (1 - Math.pow(w, n));
  });
}

/** The weights `s` cycles through in the cockpit (0: off), and `--smooth`'s default. */
export const SMOOTHING_WEIGHTS: readonly number[] = [0, 0.6, 0.9, 0.99];
