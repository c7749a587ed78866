// Config warnings that only the target can settle. `actor.path: models/qwen3-vl` looks like a Hub id
// to the config check (hub-model-path); pre-flight looks on the target, and when that directory is
// there (the model check is ok) the warning was about nothing: callers that print both drop it.
import type { Diagnostic } from '../config/index.js';
import type { CheckResult } from './types.js';

export function settledByPreflight(d: Pick<Diagnostic, 'code' | 'key'>, checks: readonly CheckResult[]): boolean {
  if (d.code === 'hub-model-path' && d.key === 'actor.path')
    return checks.some((c) => c.id === 'model' && c.result === 'ok');
  return false;
}

/** The config diagnostics still worth showing once pre-flight has run. */
export function unsettledDiagnostics<T extends Pick<Diagnostic, 'code' | 'key'>>(
  diagnostics: readonly T[],
  checks: readonly CheckResult[],
): T[] {
  return diagnostics.filter((d) => !settledByPreflight(d, checks));
}
