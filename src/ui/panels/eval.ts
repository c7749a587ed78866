// The held-out eval, round after round (webgym's test rollout): the best round, the running one
// (or the eval thread's crash), a sparkline of the rounds' rewards and a table of rounds, newest
// first: model step, reward with its 95 % Wilson interval (over the round's completed tasks), the
// difficulty buckets with their n when the step table carried them, failed tasks, the round's time.
// Pure: (props, width, height) → lines.
import { roundText, type EvalCrash, type EvalRound } from '../../metrics/eval-history.js';
import type { EvalBucket, EvalProgressEvent } from '../../trainer-log/events.js';
import { cell, fit, formatDuration, formatShortDuration } from '../format.js';
import { clipLine, titleLine, type Line } from '../lines.js';

export interface EvalPanelProps {
  /** Completed rounds, oldest first. */
  rounds: readonly EvalRound[];
  /** Rounds no longer kept (the oldest). */
  dropped: number;
  running: EvalProgressEvent | null;
  best: EvalRound | null;
  crash: EvalCrash | null;
  medianRoundS: number | null;
}

const SPARK = '▁▂▃▄▅▆▇█';
const pct1 = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(1) : '—');

/** One character per round, newest at the right: a reward of 0 → ▁, 1 → █ (fixed scale: a
 *  success rate, so equal heights mean equal rates whatever the other rounds did). */
export function sparkline(rewards: readonly number[], width: number): string {
  return rewards
    .slice(-Math.max(0, width))
    .map((r) => (Number.isFinite(r) ? SPARK[Math.min(7, Math.max(0, Math.round(r * 7)))] : ' '))
    .join('');
}

interface Column {
  head: string;
  width: number;
  align: 'left' | 'right';
  text: (r: EvalRound) => string;
}

const bucket = (b: EvalBucket | undefined, withN: boolean) =>
  b === undefined ? '—' : withN ? `${pct1(b.reward)} n${b.n}` : pct1(b.reward);

function columns(withN: boolean): Column[] {
  const d = withN ? 11 : 6;
  return [
    { head: 'round', width: 5, align: 'right', text: (r) => String(r.event.round) },
    { head: 'model step', width: 10, align: 'right', text: (r) => String(r.event.modelStep) },
    { head: 'reward%', width: 7, align: 'right', text: (r) => pct1(r.event.reward) },
    {
      head: '95% interval',
      width: 12,
      align: 'left',
      text: (r) => (r.interval === null ? '—' : `[${pct1(r.interval.lo)}, ${pct1(r.interval.hi)}]`),
    },
    { head: 'easy', width: d, align: 'left', text: (r) => bucket(r.event.byDifficulty?.easy, withN) },
    { head: 'medium', width: d, align: 'left', text: (r) => bucket(r.event.byDifficulty?.medium, withN) },
    { head: 'hard', width: d, align: 'left', text: (r) => bucket(r.event.byDifficulty?.hard, withN) },
    { head: 'failed', width: 6, align: 'right', text: (r) => `${r.event.failed}/${r.event.total}` },
    { head: 'time', width: 6, align: 'right', text: (r) => formatShortDuration(r.event.timeS) },
  ];
}

const rowWidth = (cols: Column[], gap: string) =>
  cols.reduce((w, c) => w + c.width, 0) + gap.length * (cols.length - 1) + 2;

/** A row: the best round's marker, then the cells. */
function row(cols: Column[], gap: string, texts: string[], marker: string): string {
  return marker + ' ' + cols.map((c, i) => cell(texts[i], c.width, c.align)).join(gap);
}

function runningLine(p: EvalPanelProps): Line {
  if (p.crash !== null) {
    const at = p.crash.time ? ` at ${p.crash.time}` : '';
    const why = p.crash.cause ? `: ${p.crash.cause}` : '';
    return [{ t: `eval thread crashed${at}${why} (it retries)`, c: 'bad' }];
  }
  const r = p.running;
  if (r === null) return [{ t: 'no round running', c: 'dim' }];
  const so = r.completed > 0 ? `, ${pct1(r.reward)}% so far` : '';
  return [
    { t: `round ${r.round} running`, c: 'accent' },
    { t: ` at model step ${r.modelStep}: ${r.completed}/${r.total} completed${so}, ${r.failed} failed, ` },
    { t: `${formatDuration(r.elapsedS)} elapsed` },
  ];
}

export function evalLines(p: EvalPanelProps, width: number, height: number): Line[] {
  const n = p.rounds.length;
  const title = titleLine('Eval (held-out test rollout)', width, n ? `${n + p.dropped} rounds` : '');
  if (n === 0 && p.running === null && p.crash === null)
    return [title, [{ t: "no eval round in this run's log (test_rollout.enabled: true runs them)", c: 'dim' }]];
  const best: Line = p.best
    ? [
        { t: 'best ', c: 'good' },
        { t: roundText(p.best) },
        { t: p.medianRoundS !== null ? ` · median round ${formatDuration(p.medianRoundS)}` : '' },
      ]
    : [{ t: 'no round completed yet', c: 'dim' }];
  const spark: Line = [
    { t: 'reward by round ', c: 'dim' },
    {
      t: sparkline(
        p.rounds.map((r) => r.event.reward),
        Math.max(0, width - 16),
      ),
      c: 'accent',
    },
  ];
  const head = [title, best, runningLine(p), spark];
  // 97 columns with each bucket's n, else 74 (an 80-column terminal) with its reward only.
  const wide = columns(true);
  const fits = rowWidth(wide, '  ') <= width;
  const cols = fits ? wide : columns(false);
  const gap = fits ? '  ' : ' ';
  const left = height - head.length - 1;
  const table: Line[] = [];
  if (n > 0 && left > 0) {
    table.push([
      {
        t: fit(
          row(
            cols,
            gap,
            cols.map((c) => c.head),
            ' ',
          ),
          width,
        ),
        c: 'dim',
      },
    ]);
    const bestEvent = p.best?.event;
    for (let i = n - 1; i >= 0 && table.length < left + 1; i--) {
      const r = p.rounds[i];
      const isBest = r.event === bestEvent;
      const text = fit(
        row(
          cols,
          gap,
          cols.map((c) => c.text(r)),
          isBest ? '*' : ' ',
        ),
        width,
      );
      table.push(isBest ? [{ t: text, c: 'good' }] : text);
    }
  }
  return [...head, ...table].slice(0, Math.max(1, height)).map((l) => clipLine(l, width));
}
