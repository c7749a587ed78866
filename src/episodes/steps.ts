// The steps of a whole record, as a viewer shows them: the screenshot beside the record, the action
// and where it clicked, the page, the model's response, the judge's word. Pure; lenient like record.ts.
import { shotPath } from './filters.js';

export interface StepView {
  idx: number;
  /** The screenshot's path on the target (beside the record), or null when the step names none. */
  shot: string | null;
  actionKey: string | null;
  actionString: string | null;
  /** The action's coordinates on the 0-1000 grid Qwen's tool calls use, or null. */
  click: { x: number; y: number } | null;
  /** Answer text, typed text, scroll direction, URL navigated to: the action's argument worth reading. */
  argument: string | null;
  title: string | null;
  url: string | null;
  viewport: { width: number; height: number } | null;
  thought: string | null;
  response: string | null;
  /** The image judge's verdict on this step (answered episodes only), or null. */
  judgment: string | null;
}

const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function clickOf(args: Record<string, unknown>): { x: number; y: number } | null {
  const c = args.coordinates;
  if (!Array.isArray(c) || c.length < 2) return null;
  const [x, y] = [num(c[0]), num(c[1])];
  return x === null || y === null ? null : { x, y };
}

export function stepViews(file: string, record: Record<string, unknown>): StepView[] {
  const steps = Array.isArray(record.steps) ? record.steps : [];
  const paths = Array.isArray(record.screenshot_paths) ? record.screenshot_paths : [];
  return steps.map((raw, i): StepView => {
    const s = obj(raw);
    const obs = obj(s.observation);
    const meta = obj(obs.page_metadata);
    const act = obj(s.action);
    const call = obj(act.action);
    const args = obj(call.arguments);
    const resp = obj(s.response);
    const tokens = obj(resp.answering_tokens);
    const reward = obj(s.reward);
    const image = str(obs.image_path) ?? str(paths[i]);
    const width = num(meta.width);
    const height = num(meta.height);
    return {
      idx: num(s.step_idx) ?? i,
      shot: image === null ? null : shotPath(file, image),
      actionKey: str(call.key),
      actionString: str(act.action_string),
      click: clickOf(args),
      argument: str(args.content) ?? str(args.text) ?? str(args.direction) ?? str(args.url),
      title: str(meta.title),
      url: str(meta.url),
      viewport: width !== null && height !== null ? { width, height } : null,
      thought: str(tokens.thought),
      response: str(resp.raw_response) ?? str(s.completion),
      judgment: str(reward.submission_judgment),
    };
  });
}

/** Each evaluator response's criterion and verdict (`2. Verdict: SUCCESS` / `NOT SUCCESS`). */
export function verdicts(evaluation: string[] | null): { criterion: string; verdict: string }[] {
  return (evaluation ?? []).map((text) => {
    const criterion = /^\[([^\]]+)\]/.exec(text)?.[1] ?? 'evaluation';
    const v = /Verdict:\s*\**\s*(NOT SUCCESS|SUCCESS)/i.exec(text)?.[1]?.toUpperCase();
    return { criterion, verdict: v ?? (text.startsWith('Evaluation failed') ? 'evaluation failed' : 'no verdict') };
  });
}

/** Text folded to at most `lines` lines of `width` characters, the cut said ("… N more lines"). */
export function fold(text: string, width: number, lines: number): string[] {
  const out: string[] = [];
  for (const para of text.replace(/\r/g, '').split('\n')) {
    if (para === '') {
      out.push('');
      continue;
    }
    for (let i = 0; i < para.length; i += width) out.push(para.slice(i, i + width));
  }
  if (out.length <= lines) return out;
  return [...out.slice(0, lines - 1), `… ${out.length - lines + 1} more lines`];
}
