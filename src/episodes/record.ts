// An episode record as the trainer dumps it (webgym-dumps.md "Episode JSON contents"): read leniently,
// since the project meets dumps it has not seen. A field of the wrong type is unknown (null), never
// a guess; the record's own object is kept for `--json`.
import { headBeforeSteps } from './json-head.js';

export type DumpKind = 'train' | 'eval';
/** `rollout/` holds training episodes by policy version, `test-rollout/` eval episodes by model step. */
export const DUMP_SUBDIR: Record<DumpKind, string> = { train: 'rollout', eval: 'test-rollout' };

export interface TaskInfo {
  taskName: string | null;
  website: string | null;
  domain: string | null;
  difficulty: number | null;
}

export interface EpisodeSummary {
  kind: DumpKind;
  /** The version directory: the group's tail version (train), the model step (eval). */
  version: number;
  /** The JSON's path on the target, and its size when listed. */
  file: string;
  fileSize: number;
  taskId: string;
  episodeIdx: number;
  nSteps: number | null;
  reward: number | null;
  headVersion: number | null;
  tailVersion: number | null;
  screenshotPaths: string[];
  /** The evaluator's responses; null when it did not run (no answer, timed out). */
  evaluation: string[] | null;
  isBlocked: boolean | null;
  timedOut: boolean | null;
  taskInfo: TaskInfo;
  /** The record's own fields before `steps` (what `--json` prints). */
  raw: Record<string, unknown>;
  /** Why the record could not be read (cut short by a writer, not JSON): the rest is unknown. */
  problem: string | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** `{task_id}_ep{n}.json` → task id and episode index (only when the record itself cannot say). */
export function nameParts(name: string): { taskId: string; episodeIdx: number } | null {
  const m = /^(.*)_ep(\d+)\.json$/.exec(name);
  return m ? { taskId: m[1], episodeIdx: Number(m[2]) } : null;
}

export function evaluationOf(v: unknown): string[] | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : null;
}

export interface SummaryPlace {
  kind: DumpKind;
  version: number;
  file: string;
  fileSize: number;
}

/** The summary of a record's fields (its head or the whole record). */
export function summaryOf(place: SummaryPlace, raw: Record<string, unknown>): EpisodeSummary {
  const name = place.file.slice(place.file.lastIndexOf('/') + 1);
  const fromName = nameParts(name);
  const info = obj(raw.task_info);
  const { steps: _steps, ...head } = raw;
  return {
    ...place,
    taskId: typeof raw.task_id === 'string' ? raw.task_id : (fromName?.taskId ?? name),
    episodeIdx: num(raw.episode_idx) ?? fromName?.episodeIdx ?? -1,
    nSteps: num(raw.n_steps),
    reward: num(raw.reward),
    headVersion: num(raw.head_version),
    tailVersion: num(raw.tail_version),
    screenshotPaths: Array.isArray(raw.screenshot_paths)
      ? raw.screenshot_paths.filter((p): p is string => typeof p === 'string')
      : [],
    evaluation: evaluationOf(raw.evaluation),
    isBlocked: bool(raw.is_blocked),
    timedOut: bool(raw.episode_timed_out),
    taskInfo: {
      taskName: strOrNull(info.task_name),
      website: strOrNull(info.website),
      domain: strOrNull(info.domain),
      difficulty: num(info.difficulty),
    },
    raw: head,
    problem: null,
  };
}

/** A record that could not be read: what its name says, the rest unknown. */
export function unreadable(place: SummaryPlace, problem: string): EpisodeSummary {
  const s = summaryOf(place, {});
  return { ...s, problem };
}

/** The summary from the first bytes of a record (`complete`: they are the whole file). */
export function summaryFromHead(place: SummaryPlace, head: string, complete: boolean): EpisodeSummary | 'need-more' {
  const fields = headBeforeSteps(head);
  if (fields) return summaryOf(place, fields);
  if (!complete) return 'need-more';
  const whole = parseRecord(head);
  return whole.ok ? summaryOf(place, whole.record) : unreadable(place, whole.why);
}

/** The whole record, parsed; a record cut short says so (a running writer: the trainer writes in place). */
export function parseRecord(text: string): { ok: true; record: Record<string, unknown> } | { ok: false; why: string } {
  try {
    const v: unknown = JSON.parse(text);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, why: 'not a JSON object' };
    return { ok: true, record: v as Record<string, unknown> };
  } catch {
    return { ok: false, why: cutOrBroken(text) };
  }
}

function cutOrBroken(text: string): string {
  if (text.length === 0) return 'empty file (being written?)';
  return /}\s*$/.test(text)
    ? 'not valid JSON'
    : `JSON cut short after ${text.length} bytes (the trainer writes in place: being written?)`;
}
