// `compare`'s three forms of one result: JSON (for scripts), the human text and Markdown (to paste
// into a report). Pure: the sides as read (compare-sides.ts) in, text out.
import { statJsonValue, nonFiniteText } from '../trainer-log/index.js';
import {
  compareKey,
  configDiff,
  latestCommon,
  runFigures,
  type ComparedSeries,
  type ConfigKeyDiff,
  type RunFigures,
} from '../metrics/compare.js';
import type { RunStepsView } from '../metrics/run-steps.js';
import type { Side } from './compare-sides.js';

export interface CompareResult {
  a: Side;
  b: Side;
  smoothing: number;
  keys: string[];
  series: Record<string, ComparedSeries>;
  figures: { a: RunFigures | null; b: RunFigures | null };
  configDiff: ConfigKeyDiff[] | null;
  configDiffUnknown?: string;
}

const EMPTY: RunStepsView = {
  steps: [],
  stepSeconds: [],
  episodes: [],
  timeMs: [],
  values: new Map(),
  resumes: 0,
  finished: false,
};
const stepsOf = (s: Side) => (s.history.log === 'read' ? s.history.steps : EMPTY);

export function buildCompare(a: Side, b: Side, keys: string[], smoothing: number): CompareResult {
  const series: Record<string, ComparedSeries> = {};
  const facts = {
    a: a.consumerBatchSize !== undefined ? { consumerBatchSize: a.consumerBatchSize } : {},
    b: b.consumerBatchSize !== undefined ? { consumerBatchSize: b.consumerBatchSize } : {},
  };
  for (const k of keys) series[k] = compareKey(stepsOf(a), stepsOf(b), k, smoothing, facts);
  const unknown = a.config === null ? `a: ${a.configUnknown}` : b.config === null ? `b: ${b.configUnknown}` : null;
  return {
    a,
    b,
    smoothing,
    keys,
    series,
    figures: {
      a: a.history.log === 'read' ? runFigures(a.history.steps) : null,
      b: b.history.log === 'read' ? runFigures(b.history.steps) : null,
    },
    configDiff: a.config && b.config ? configDiff(a.config, b.config) : null,
    ...(unknown ? { configDiffUnknown: unknown } : {}),
  };
}

const j = (xs: readonly (number | null)[]) => xs.map(statJsonValue);

function sideJson(s: Side, f: RunFigures | null) {
  return {
    runId: s.runId,
    target: s.target,
    label: s.label,
    logPath: s.logPath,
    state: s.state,
    // 'missing': the log is not there, so this side has no series (not an empty run).
    log: s.history.log,
    ...(f
      ? {
          steps: f.steps,
          lastStep: f.lastStep,
          resumes: f.resumes,
          finished: f.finished,
          finalReward: statJsonValue(f.finalReward),
          bestReward: f.bestReward,
          meanStepTimeS: f.meanStepTimeS,
          trainingHours: f.trainingHours,
          staleness: f.staleness,
          eval: f.eval,
        }
      : {}),
  };
}

/** The JSON document (one line). */
export function compareJson(r: CompareResult): string {
  const series: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(r.series)) {
    series[k] = {
      steps: s.steps,
      a: j(s.a),
      b: j(s.b),
      aSmoothed: j(s.aSmoothed),
      bSmoothed: j(s.bSmoothed),
      delta: j(s.delta),
      aHours: s.aHours,
      bHours: s.bHours,
      aSamples: s.aSamples,
      bSamples: s.bSamples,
      latestCommon: latestCommon(s),
    };
  }
  const phases: Record<string, { a: number | null; b: number | null }> = {};
  for (const p of r.figures.a?.phases ?? []) phases[p.key] = { a: p.meanS, b: null };
  for (const p of r.figures.b?.phases ?? []) phases[p.key] = { a: phases[p.key]?.a ?? null, b: p.meanS };
  return JSON.stringify({
    type: 'compare',
    a: sideJson(r.a, r.figures.a),
    b: sideJson(r.b, r.figures.b),
    smoothing: r.smoothing,
    series,
    configDiff: r.configDiff,
    ...(r.configDiffUnknown ? { configDiffUnknown: r.configDiffUnknown } : {}),
    phases,
  });
}

/** A number for a person: 4 significant decimals, nan/inf as logged, '-' when unknown. */
export function num(v: number | null | undefined, digits = 4): string {
  if (v === null || v === undefined) return '-';
  if (!Number.isFinite(v)) return nonFiniteText(v);
  return Math.abs(v) >= 1000 ? v.toFixed(0) : v.toFixed(digits);
}
const signed = (v: number) => `${v >= 0 ? '+' : '−'}${num(Math.abs(v))}`;
const secs = (v: number | null | undefined) => (v === null || v === undefined ? '-' : `${v.toFixed(1)}s`);
const configValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function sideState(s: Side, f: RunFigures | null): string {
  if (s.history.log === 'missing') return `its log ${s.history.path} is gone: no series`;
  const steps = f?.lastStep !== null && f?.lastStep !== undefined ? `step ${f.lastStep}` : 'no step yet';
  const live = s.state === 'running' ? `running, ${steps} so far` : `${s.state}, ${steps}`;
  return `${live}${f?.resumes ? `, resumed ${f.resumes}×` : ''}`;
}

/** The summary rows: what, a, b. */
function summaryRows(r: CompareResult): string[][] {
  const fa = r.figures.a;
  const fb = r.figures.b;
  const both = (fn: (f: RunFigures) => string) => [fa ? fn(fa) : '-', fb ? fn(fb) : '-'];
  const best = (f: RunFigures) => (f.bestReward ? `${num(f.bestReward.value)} @${f.bestReward.step}` : '-');
  const rows: string[][] = [
    ['final reward', ...both((f) => num(f.finalReward))],
    ['best reward', ...both(best)],
    ['mean step time', ...both((f) => secs(f.meanStepTimeS))],
  ];
  const phases = [...new Set([...(fa?.phases ?? []), ...(fb?.phases ?? [])].map((p) => p.key))].sort();
  for (const key of phases) {
    const of = (f: RunFigures | null) => (f ? secs(f.phases.find((p) => p.key === key)?.meanS) : '-');
    rows.push([`  ${key}`, of(fa), of(fb)]);
  }
  rows.push(['training hours', ...both((f) => num(f.trainingHours, 2))]);
  rows.push(['staleness avg (mean)', ...both((f) => num(f.staleness.meanAvg, 2))]);
  rows.push(['staleness max', ...both((f) => num(f.staleness.max, 0))]);
  if (fa?.eval || fb?.eval) {
    const ev = (f: RunFigures) => (f.eval ? `${f.eval.rounds} (last ${num(f.eval.lastReward)})` : 'none');
    rows.push(['eval rounds', ...both(ev)]);
  }
  return rows;
}

/** "Δ rollout/reward +0.0310 at step 412 (smoothed 0.6: +0.0200)" per key; or why there is none. */
function deltaLines(r: CompareResult): string[] {
  return r.keys.map((k) => {
    const s = r.series[k];
    const c = latestCommon(s);
    if (!c) return `Δ ${k}: no step where both runs have a value`;
    const at = s.steps.indexOf(c.step);
    const sa = s.aSmoothed[at];
    const sb = s.bSmoothed[at];
    const sm =
      r.smoothing > 0 && typeof sa === 'number' && typeof sb === 'number' && Number.isFinite(sa) && Number.isFinite(sb)
        ? ` (smoothed ${r.smoothing}: ${signed(sb - sa)})`
        : '';
    return `Δ ${k} ${signed(c.delta)} at step ${c.step}${sm}`;
  });
}

function configLines(r: CompareResult): string[][] {
  return (r.configDiff ?? []).map((d) => [d.key, configValue(d.a), configValue(d.b)]);
}

function table(rows: string[][]): string[] {
  const w = rows[0].map((_, i) => Math.max(...rows.map((x) => x[i].length)));
  return rows.map((x) =>
    x
      .map((c, i) => (i === x.length - 1 ? c : c.padEnd(w[i])))
      .join('  ')
      .trimEnd(),
  );
}

export function compareText(r: CompareResult): string {
  const out = [`a: ${r.a.label} (${sideState(r.a, r.figures.a)})`, `b: ${r.b.label} (${sideState(r.b, r.figures.b)})`];
  out.push('');
  if (r.configDiff === null) out.push(`config: not compared (${r.configDiffUnknown})`);
  else if (r.configDiff.length === 0) out.push('config: the same resolved config');
  else {
    out.push(`config: ${r.configDiff.length} resolved key${r.configDiff.length === 1 ? '' : 's'} differ`);
    out.push(...table([['key', 'a', 'b'], ...configLines(r)]).map((l) => `  ${l}`));
  }
  out.push('');
  out.push(...table([['', 'a', 'b'], ...summaryRows(r)]));
  out.push('');
  out.push(...deltaLines(r));
  return out.join('\n') + '\n';
}

const mdRow = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
const mdTable = (head: string[], rows: string[][]) => [
  mdRow(head),
  mdRow(head.map(() => '---')),
  ...rows.map((x) => mdRow(x.map((c) => (c.trim() === c ? c : `&nbsp;&nbsp;${c.trim()}`)))),
];

export function compareMarkdown(r: CompareResult): string {
  const out = [
    `### ${r.a.label} vs ${r.b.label}`,
    '',
    `- a: \`${r.a.label}\` (${sideState(r.a, r.figures.a)})`,
    `- b: \`${r.b.label}\` (${sideState(r.b, r.figures.b)})`,
    '',
  ];
  if (r.configDiff === null) out.push(`Config: not compared (${r.configDiffUnknown}).`);
  else if (r.configDiff.length === 0) out.push('Config: the same resolved config.');
  else
    out.push(
      'Config keys that differ:',
      '',
      ...mdTable(
        ['key', 'a', 'b'],
        configLines(r).map((x) => [`\`${x[0]}\``, x[1], x[2]]),
      ),
    );
  out.push('', ...mdTable(['', 'a', 'b'], summaryRows(r)), '');
  out.push(...deltaLines(r).map((l) => `- ${l}`));
  return out.join('\n') + '\n';
}
