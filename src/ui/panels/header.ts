// The dashboard's two header lines: who/where/how connected, then progress and timing.
import { fit, fitMiddle, formatAge, lastStepWhen } from '../format.js';
import type { Line, Seg } from '../lines.js';
import {
  ENDED_STATES,
  type ConnectionState,
  type DashboardFigures,
  type LogReadEnd,
  type RunState,
} from '../../session/types.js';

export interface HeaderProps {
  runId: string;
  target: string;
  connection: ConnectionState;
  runState: RunState;
  figures: DashboardFigures;
  connectionAt: number;
  now: number;
  /** The run ended and nothing is polled but its state, every this many seconds; how far its log
   *  was read (absent: to its end). */
  pollingStopped?: { statePollS: number; log?: LogReadEnd };
  /** The log cannot be followed although the connection works (the status line says why). */
  followProblem?: boolean;
  /** Connected, but the target has sent nothing since then (epoch ms): `no data from HOST for N s`. */
  silentSince?: number;
  /** A long log's history is still being read (the figures are its last few MiB so far). */
  history?: { readBytes: number; totalBytes: number };
  /** The Ray bring-up line while the attempt is in it: the second line says it instead of the step
   *  figures (there are none yet, or they are the previous attempt's). */
  rayBringUp?: string;
  /** A hang alert stands: the watch's stall rules (src/health) say no step is coming. */
  hung?: boolean;
  /** wandb's run URL (the log's banner), shown after the step figures where the line has room. */
  wandbUrl?: string;
  /** Columns: in a narrow terminal the run id is cut in its middle and the least useful figures
   *  are left out, so the run state and the age of the last step stay on screen. */
  width?: number;
}

/** How far the log of an ended run was read, as the header says it: never "read to its end" when
 *  it was not (the figures would be taken as final). */
const LOG_READ_END: Record<LogReadEnd, string> = {
  read: 'log read to its end',
  unreadable: 'log unreadable',
  incomplete: 'log not read to its end',
  missing: 'no log',
};

export function connectionText(c: ConnectionState, sinceMs = 0): Seg {
  switch (c.state) {
    case 'ready':
      return { t: 'connected', c: 'good' };
    case 'connecting':
      return { t: 'connecting…', c: 'warn' };
    case 'reconnecting':
      return {
        t: `reconnecting in ${Math.max(0, Math.ceil((c.nextInMs - sinceMs) / 1000))} s (attempt ${c.attempt})`,
        c: 'warn',
        bold: true,
      };
    case 'failed':
      return { t: `connection failed: ${c.reason}`, c: 'bad', bold: true };
    case 'closed':
      return { t: 'disconnected', c: 'dim' };
  }
}

export function runStateSeg(s: RunState): Seg {
  const c = s === 'running' ? 'good' : s === 'failed' || s === 'timeout' ? 'bad' : s === 'finished' ? 'accent' : 'warn';
  return { t: s, c, bold: true };
}

/**
 * The ETA as the header says it. Estimated at the last step, it counts down until the next step is
 * due. A late step makes it a lower bound (`≥`: the steps after the late one still take that long).
 * Once the watch's stall rules say the run is hung (`hung`: a hang alert stands, the one judgement
 * the Alerts panel shows too) and the log can be read, when it ends is not known: the header says
 * so rather than hold the old figure. A log that cannot be read (connection lost, log not followed)
 * is no trainer silence: the lower bound stays. An ended run has none.
 */
export function etaText(
  etaS: number | null,
  ageS: number | null,
  stepTimeS: number | null,
  o: { ended: boolean; readable: boolean; hung: boolean },
): string {
  if (o.ended || etaS === null) return '—';
  if (o.hung && o.readable) return ageS === null ? '— (stalled)' : `— (stalled ${formatAge(ageS)})`;
  if (ageS === null) return formatAge(etaS);
  const step = stepTimeS ?? Infinity;
  if (ageS <= step) return formatAge(Math.max(0, etaS - ageS));
  return `≥ ${formatAge(Math.max(0, etaS - step))}`;
}

export function headerLines(p: HeaderProps): Line[] {
  const f = p.figures;
  const step = f.step !== null ? `step ${f.step}/${f.totalSteps ?? '?'}` : 'step —';
  const epoch = f.epoch !== null ? `epoch ${f.epoch}/${f.epochs ?? '?'}` : 'epoch —';
  const ageS = f.lastStepAt !== null ? Math.max(0, (p.now - f.lastStepAt) / 1000) : null;
  // An ended run's clock stops at its last record, and it has no ETA (nor a late step).
  const ended = ENDED_STATES.has(p.runState);
  const until = ended ? (f.endedAt ?? null) : p.now;
  const elapsedS = f.startedAt !== null && until !== null ? Math.max(0, (until - f.startedAt) / 1000) : null;
  const readable = p.connection.state === 'ready' && !p.followProblem && p.silentSince === undefined;
  const eta = etaText(f.etaS, ageS, f.stepTimeS, { ended, readable, hung: p.hung === true });
  const stale = !ended && ageS !== null && f.stepTimeS !== null && ageS > 3 * f.stepTimeS;
  const width = p.width ?? Infinity;
  // `connected` alone would say all is well while nothing can be read (shorter where narrow).
  const unread =
    ` on ${p.target} │ connected, cannot follow the log │ ${p.runState}`.length + 12 <= width
      ? 'connected, cannot follow the log'
      : 'log not followed';
  const silent = p.silentSince !== undefined && p.connection.state === 'ready';
  const conn: Seg = silent
    ? {
        t: `no data from ${p.target} for ${Math.round(Math.max(0, p.now - p.silentSince!) / 1000)} s`,
        c: 'bad',
        bold: true,
      }
    : p.followProblem && p.connection.state === 'ready'
      ? { t: unread, c: 'bad', bold: true }
      : connectionText(p.connection, Math.max(0, p.now - p.connectionAt));
  const state = runStateSeg(p.runState);
  // An ended run is no longer followed: say so (the figures are final, not frozen by a fault).
  // The long wording only where the run id still fits whole; the short one even at 60 columns.
  const base = ` on ${p.target} │ ${conn.t} │ ${state.t}`.length;
  const long = ` │ polling stopped (${LOG_READ_END[p.pollingStopped?.log ?? 'read']}; state and GPUs every ${p.pollingStopped?.statePollS} s)`;
  const polling = !p.pollingStopped
    ? ''
    : p.runId.length + base + long.length <= width
      ? long
      : base + 12 + ' │ polling stopped'.length <= width
        ? ' │ polling stopped'
        : '';
  const reading = p.history ? historyText(p.history, width - base) : '';
  const rest = ` on ${p.target} │ ${conn.t} │ ${state.t}${polling}${reading}`.length;
  const id = fitMiddle(p.runId, Math.max(12, width - rest));
  // Figures by how much they are missed when left out: the epoch, then the elapsed time, then the ETA.
  const age: Seg = { t: lastStepWhen(f.lastStepAt, p.now), c: stale ? 'warn' : undefined };
  const parts = [`  ${epoch}`, `  elapsed ${formatAge(elapsedS)}`, `  ETA ${eta}`];
  const fixed = step.length + '  last step '.length + age.t.length;
  while (parts.length && fixed + parts.join('').length > width) parts.shift();
  const second: Line = p.rayBringUp
    ? [{ t: fit(p.rayBringUp, width === Infinity ? p.rayBringUp.length : width), c: 'warn', bold: true }]
    : [
        { t: step, bold: true },
        { t: `${parts.join('')}  last step ` },
        age,
        ...wandbSegs(p.wandbUrl, fixed + parts.join('').length, width),
      ];
  return [
    [
      { t: id, bold: true },
      { t: ' on ' },
      { t: p.target, c: 'accent' },
      { t: ' │ ' },
      conn,
      { t: ' │ ' },
      state,
      ...(polling ? [{ t: polling, c: 'dim' as const }] : []),
      ...(reading ? [{ t: reading, c: 'warn' as const }] : []),
    ],
    second,
  ];
}

/** `  │ wandb URL` after the step figures when all of it fits (a cut URL is no link); else the run's
 *  id (the URL's last part), linked to the whole URL: real URLs (~130 characters with the project's
 *  experiment names) rarely fit, and the id still says which run it is (the Eval screen has the URL). */
function wandbSegs(url: string | undefined, used: number, width: number): Seg[] {
  if (url === undefined) return [];
  const room = width - used - ' │ wandb '.length;
  const id = url.replace(/\/+$/, '').split('/').at(-1) ?? '';
  const text = url.length <= room ? url : id.length > 0 && id.length <= room ? id : null;
  if (text === null) return [];
  return [
    { t: ' │ wandb ', c: 'dim' },
    { t: text, c: 'accent', link: url },
  ];
}

/** ` │ reading history: 640 MB of 1.07 GB` (shorter where narrow; nothing where it cannot fit). */
export function historyText(h: { readBytes: number; totalBytes: number }, room: number): string {
  const long = ` │ reading history: ${formatBytes(h.readBytes)} of ${formatBytes(h.totalBytes)}`;
  if (long.length + 12 <= room) return long;
  const short = ` │ history ${Math.floor((100 * h.readBytes) / Math.max(1, h.totalBytes))}%`;
  return short.length + 12 <= room ? short : '';
}

/** Bytes as people say a file's size: `640 MB`, `1.07 GB` (decimal units, as `ls -lh --si`). */
export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} kB`;
  return `${n} B`;
}

/** The status line for a log that cannot be followed: the whole text (target, path, error, what to
 *  do) where it fits; else without the target (the header names it) and the retry remark; else the
 *  path and the error, pointing at the log pane for the rest (the path cut in its middle, never the
 *  error, when even that is too long). */
export function followProblemStatus(
  p: { text: string; path: string; error: string; advice: string },
  width: number,
): string {
  const error = p.error.startsWith(`${p.path}: `) ? p.error.slice(p.path.length + 2) : p.error;
  const tries = [
    p.text,
    `cannot follow ${p.path}: ${error}; ${p.advice}`,
    `cannot follow ${p.path}: ${error} (what to do: log pane)`,
  ];
  const fits = tries.find((t) => t.length <= width);
  if (fits) return fits;
  for (const pointer of [' (what to do: log pane)', ' (see log pane)', '']) {
    const room = width - `cannot follow : ${error}${pointer}`.length;
    if (room >= 12) return `cannot follow ${fitMiddle(p.path, room)}: ${error}${pointer}`;
  }
  return fit(`cannot follow the log: ${error}`, width);
}
