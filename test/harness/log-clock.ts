// The trainer's log clock for tests that line a log up with a real clock (Slurm's, this machine's):
// the log prints zone-less local time, and squeue %e does too.

/** Every `20260525-12:09:55.899` timestamp of a trainer log moved by `shiftMs`. */
export function shiftLog(text: string, shiftMs: number): string {
  return text.replace(/(\d{4})(\d\d)(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\b/g, (_m, y, mo, d, h, mi, s, ms) => {
    const t = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, +ms) + shiftMs);
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    return `${t.getUTCFullYear()}${p(t.getUTCMonth() + 1)}${p(t.getUTCDate())}-${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}.${p(t.getUTCMilliseconds(), 3)}`;
  });
}

/** This machine's local time now, as a zone-less UTC-read epoch (the log's clock, and squeue's). */
export const localNaiveNow = (): number => Date.now() - new Date().getTimezoneOffset() * 60_000;
