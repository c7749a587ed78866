import { readFileSync } from 'node:fs';
import { evaluateConfig, type ConfigEvaluation, type Diagnostic } from '../../src/config/index.js';

export const REFERENCE_PATH = new URL(
  '../fixtures/shared/reference/config_8x8h100_grpo_inst_nokl.yaml',
  import.meta.url,
).pathname;
export const REFERENCE = readFileSync(REFERENCE_PATH, 'utf8');

/** Replace the first occurrence of `from` (which must exist) in the reference config. */
export function mutate(from: string, to: string, text = REFERENCE): string {
  const i = text.indexOf(from);
  if (i < 0) throw new Error(`mutation target not found: ${from}`);
  return text.slice(0, i) + to + text.slice(i + from.length);
}

/** 1-based line and column of the first key character of the line holding `needle` (searched after `after`). */
export function posOf(text: string, needle: string, after = ''): { line: number; col: number } {
  const start = after ? text.indexOf(after) : 0;
  const i = text.indexOf(needle, start);
  if (i < 0) throw new Error(`not found: ${needle}`);
  const line = text.slice(0, i).split('\n').length;
  const lineText = text.split('\n')[line - 1];
  return { line, col: lineText.length - lineText.trimStart().length + 1 };
}

export function evaluate(text: string, overrides: string[] = [], env: string[] = ['WANDB_API_KEY']): ConfigEvaluation {
  return evaluateConfig({ fileName: 'cfg.yaml', text, overrides, envNames: env });
}

export function only(ev: ConfigEvaluation, code: string): Diagnostic {
  const ds = ev.diagnostics.filter((d) => d.code === code);
  if (ds.length !== 1)
    throw new Error(`expected one '${code}', got ${ds.length}: ${JSON.stringify(ev.diagnostics, null, 1)}`);
  return ds[0];
}
