// Number and time formatting exactly as the trainer's Python prints them. Pure.

/**
 * Python's `format(x, '.4e')`: mantissa with 4 decimals, exponent with sign and at least two
 * digits, `nan`, `inf`, `-inf`. Ties (a value exactly halfway) round half-to-even as CPython does;
 * JavaScript's toExponential rounds them up, which would differ in the last digit.
 */
export function formatExp(x: number, digits = 4): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s = a.toExponential(digits);
  // An exact tie shows as `d.dddd5000…` in a longer expansion (a tie is a short dyadic number).
  const long = a.toExponential(digits + 16);
  const m = /^(\d)\.(\d+)e([+-]\d+)$/.exec(long)!;
  const tail = m[2].slice(digits);
  if (/^50*$/.test(tail)) {
    const kept = m[1] + m[2].slice(0, digits);
    const lastEven = Number(kept[kept.length - 1]) % 2 === 0;
    if (lastEven) s = `${kept[0]}${digits > 0 ? '.' + kept.slice(1) : ''}e${m[3]}`;
  }
  const [mant, exp] = s.split('e');
  const e = Number(exp);
  const expStr = (e < 0 ? '-' : '+') + String(Math.abs(e)).padStart(2, '0');
  return `${neg ? '-' : ''}${mant}e${expStr}`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** `%Y%m%d-%H:%M:%S.mmm` in local time, as the trainer's log header prints it. */
export function logTimestamp(ms: number): string {
  const d = new Date(ms);
  const msPart = String(Math.floor(ms - Math.floor(ms / 1000) * 1000)).padStart(3, '0');
  return `${d.getFullYear()}${pad2(d.getMonth() + 1)}${pad2(d.getDate())}-${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${msPart}`;
}

/** The same instant as the event contract writes it: `2026-05-25T12:19:55.952` (local, no zone). */
export function eventTime(ms: number): string {
  const t = logTimestamp(ms);
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9)}`;
}

/** The value a reader of the printed text gets back: what the parser must report (nan -> NaN). */
export function printedValue(x: number): number | null {
  const s = formatExp(x);
  if (s === 'nan') return Number.NaN;
  if (s === 'inf') return Infinity;
  if (s === '-inf') return -Infinity;
  return Number(s);
}

/** Python's `'%.Nf' % x`: ties (an exact binary half) round half-to-even, as CPython does, where
 *  JavaScript's toFixed rounds them up (`'%.4f' % 0.03125` is `0.0312`). */
export function formatFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s = a.toFixed(digits);
  const long = a.toFixed(Math.min(100, digits + 30));
  const cut = long.length - 30;
  if (/^50*$/.test(long.slice(cut)) && Number(long[cut - 1 - (long[cut - 1] === '.' ? 1 : 0)]) % 2 === 0)
    s = long.slice(0, digits > 0 ? cut : cut - 1);
  return `${neg ? '-' : ''}${s}`;
}
