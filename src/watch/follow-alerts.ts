// The log's silence measured on the target (measureLogSilence, LogSilenceWatch: RunWatch counts it)
// and the alert lines `follow` prints. Watching a run, its rules and what fired or cleared (counting
// its silence exactly, once) is src/watch/run-watch.ts's.
import type { Alert } from '../metrics/index.js';
import type { Transport } from '../remote/transport.js';
import { exceptionLine } from '../trainer-log/classify.js';

/** How long a log has been silent, as its target sees it. */
export interface LogSilence {
  /** Bytes in the file when its mtime was read: every one of them was written by then. */
  size: number;
  /** The target's now minus the file's mtime, both on the target's clock (zone- and skew-free). */
  silenceMs: number;
  /** Our clock when the answer came: the last write was at `measuredWall - silenceMs` on our clock,
   *  late by at most the round trip (the silence is never overstated). */
  measuredWall: number;
  /** The log's last bytes up to `size` ([from, size)), when asked for (`LogTailWanted`). */
  tail?: LogTail;
}

/** Bytes of the log read at `from`. */
export interface LogTail {
  from: number;
  bytes: Buffer;
}

/** The raw tail taken in the same round trip as the measure (an attach's: the log pane's lines
 *  come with it, not a round trip after): its last `bytes`, only when the log is larger than `above`. */
export interface LogTailWanted {
  bytes: number;
  above: number;
}

// $1 the log. Size, then mtime, then now, in that order: every byte the size covers was written by
// the mtime, and now is not before it. GNU stat/date (-r, %N), as on the Linux hosts runs use.
// Prints nothing when the file does not exist (yet). With $2 > 0 and a size above $3: the line
// also says where the tail starts, and the bytes [that, size) follow it (a log that grew since is
// cut at the size measured; one truncated meanwhile gives fewer: the caller drops them).
const SILENCE_SCRIPT = [
  'F="$1"; W="${2:-0}"; A="${3:-0}"',
  '[ -e "$F" ] || exit 0',
  's=$(stat -L -c %s -- "$F") && m=$(date -r "$F" +%s%N) && n=$(date +%s%N) || exit 1',
  'if [ "$W" -le 0 ] || [ "$s" -le "$A" ]; then echo "$s $m $n"; exit 0; fi',
  't=$((s > W ? s - W : 0)); echo "$s $m $n $t"',
  'tail -c +$((t + 1)) -- "$F" | head -c $((s - t))',
].join('\n');

/** The log's silence, measured on the target; null when the file is missing or the answer is not
 *  understood (a target without GNU date). With `tail`, the log's last bytes in the same answer
 *  (not on this machine's log: reading it is no round trip). */
export async function measureLogSilence(
  transport: Transport,
  logPath: string,
  clock: () => number = Date.now,
  tail?: LogTailWanted,
): Promise<LogSilence | null> {
  // This machine's log (the local transport: the sentinel next to its run, a local run): one stat,
  // size and mtime from the same look, then now; no four processes each time (the sentinel's
  // profile: they were its largest cost after the state polls).
  if (transport.target === 'local') {
    const st = await transport.stat(logPath).catch(() => null);
    const now = Date.now();
    if (!st) return null;
    return { size: st.size, silenceMs: Math.max(0, Math.floor(now - st.mtimeMs)), measuredWall: clock() };
  }
  const args = tail ? [String(tail.bytes), String(tail.above)] : [];
  const r = await transport.exec(['bash', '-c', SILENCE_SCRIPT, 'awrl-silence', logPath, ...args]);
  const measuredWall = clock();
  const nl = r.stdout.indexOf(0x0a);
  const line = r.stdout.subarray(0, nl < 0 ? r.stdout.length : nl).toString('latin1');
  const m = /^(\d+) (\d{7,})\d{6} (\d{7,})\d{6}(?: (\d+))?\s*$/.exec(line);
  if (r.code !== 0 || !m) return null;
  // Nanoseconds cut to ms as text: epoch ns do not fit a double exactly, epoch ms do.
  const size = Number(m[1]);
  const silence = { size, silenceMs: Math.max(0, Number(m[3]) - Number(m[2])), measuredWall };
  const bytes = r.stdout.subarray(nl + 1);
  const from = Number(m[4]);
  // Whole, or not at all (the log truncated between the size and the read).
  return m[4] !== undefined && bytes.length === size - from ? { ...silence, tail: { from, bytes } } : silence;
}

export interface LogSilenceWatchOptions {
  transport: Transport;
  logPath: string;
  /** Our wall clock (default Date.now), for LogSilence.measuredWall. */
  clock?: () => number;
  /** Quiet after a burst of records before the log is measured (default 500 ms): a pause inside
   *  a backlog taken for its end would date the records still to come from the silence. */
  quietMs?: number;
  /** At most one measurement this often (default 2 s). */
  minIntervalMs?: number;
  /** A measurement during which no record was read: every record read before it was in the log
   *  when it was measured, so the latest was written by `measuredWall - silenceMs`. */
  measured(m: LogSilence): void;
}

/**
 * After each burst of records (a backlog read at attach, the bytes a reconnect delivers after a
 * laptop slept through the night), once none came for `quietMs`, measures the log's silence on
 * the target, and hands it on if no record was read meanwhile (else it measures again after the
 * next quiet). Nothing is measured while no record comes.
 */
export class LogSilenceWatch {
  private records = 0;
  private covered = 0;
  private lastRecordReal = 0;
  private lastMeasureReal = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private measuring = false;
  private stopped = false;

  constructor(private readonly o: LogSilenceWatchOptions) {}

  /** A record was read. */
  record(): void {
    this.records++;
    this.lastRecordReal = Date.now();
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped || this.timer || this.measuring || this.records === this.covered) return;
    const now = Date.now();
    const quietMs = this.o.quietMs ?? 500;
    const gapMs = this.o.minIntervalMs ?? 2000;
    const wait = Math.max(0, quietMs - (now - this.lastRecordReal), gapMs - (now - this.lastMeasureReal));
    this.timer = setTimeout(() => void this.run(), wait);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    this.timer = null;
    const now = Date.now();
    if (this.stopped) return;
    if (
      now - this.lastRecordReal < (this.o.quietMs ?? 500) ||
      now - this.lastMeasureReal < (this.o.minIntervalMs ?? 2000)
    )
      return this.schedule();
    this.measuring = true;
    this.lastMeasureReal = now;
    const before = this.records;
    try {
      const m = await measureLogSilence(this.o.transport, this.o.logPath, this.o.clock).catch(() => null);
      // Records read while measuring may be newer than the mtime seen: measure again.
      if (this.stopped || this.records !== before) return;
      this.covered = before;
      if (m) this.o.measured(m);
    } finally {
      this.measuring = false;
      this.schedule();
    }
  }
}

/** `{"type":"alert-cleared","id":…,"title":…}`: the alert with that id no longer stands; with
 *  `"endedWithRun":true` when the run ended under it (a hang the run died in: not a recovery). */
export function alertClearedJsonLine(a: Alert, endedWithRun = false): string {
  return JSON.stringify({
    type: 'alert-cleared',
    id: a.id,
    severity: a.severity,
    title: a.title,
    ...(endedWithRun ? { endedWithRun: true } : {}),
  });
}

/** `alert cleared: title` for humans, or `alert ended with the run: title` (never "cleared" then:
 *  that would say the trainer got past it). */
export function alertClearedLine(a: Alert, endedWithRun = false): string {
  return `alert ${endedWithRun ? 'ended with the run' : 'cleared'}: ${a.title}`;
}

/** `{"type":"alert",...}`: one JSON line, next to the event lines of `--follow --json`. */
export function alertJsonLine(a: Alert): string {
  return JSON.stringify({
    type: 'alert',
    id: a.id,
    severity: a.severity,
    title: a.title,
    detail: a.detail,
    advice: a.advice,
    ...(a.step !== undefined ? { step: a.step } : {}),
    ...(a.time !== undefined ? { time: a.time } : {}),
  });
}

/** `alert: [warning] title: detail (advice)` for humans, on one line: a traceback detail is told by
 *  its exception line, as the cockpit's Alerts panel does (the whole traceback is in --json). */
export function alertLine(a: Alert): string {
  const detail = a.detail ? oneLineDetail(a.detail) : '';
  return `alert: [${a.severity}] ${a.title}${detail && !a.title.endsWith(detail) ? `: ${detail}` : ''}${a.advice ? ` → ${a.advice}` : ''}`;
}

/** One line of a detail: a traceback's exception line (never its header), else the last line. */
function oneLineDetail(detail: string): string {
  if (!detail.includes('\n')) return detail;
  const lines = detail.split('\n').filter((l) => l.trim() !== '');
  return exceptionLine(lines) ?? lines.at(-1) ?? '';
}
