// The diagnostic contract shared by every rule, and the `config check` line format.
import { isSecretKey, REDACTED, secretEnvNames } from './secret-keys.js';
import type { Origin } from './values.js';

/** An override as shown in messages: the value of a secret key is replaced by <redacted>.
 *  `envNames`: the config's secret env var names (secretEnvNames), for keys like env_vars.GEMINI_API_KEY. */
export function maskOverride(text: string, envNames: ReadonlySet<string> = secretEnvNames(null)): string {
  const eq = text.indexOf('=');
  if (eq < 0) return text;
  const key = text.slice(0, eq).replace(/^[+~]+/, '');
  return isSecretKey(key, envNames) && text.length > eq + 1 ? `${text.slice(0, eq + 1)}${REDACTED}` : text;
}

export interface Diagnostic {
  severity: 'error' | 'warning';
  code: string; // stable, e.g. 'batch-divisibility', 'unknown-key', 'yaml-syntax'
  message: string; // says what to change
  key?: string; // dotted path, e.g. 'rollout.consumer_batch_size'
  file?: string;
  line?: number;
  col?: number; // 1-based, when it comes from the file
  override?: { index: number; text: string }; // 1-based index, when it comes from an override
}

/** `FILE:LINE:COL: error CODE message`, or `override N 'text': …` for an override. */
export function formatDiagnostic(d: Diagnostic, fileName: string): string {
  const where = d.override
    ? `override ${d.override.index} '${d.override.text}'`
    : d.line !== undefined
      ? `${d.file ?? fileName}:${d.line}:${d.col ?? 1}`
      : `${d.file ?? fileName}`;
  return `${where}: ${d.severity} ${d.code} ${d.message}`;
}

/** Attach the position of the file line or override a value came from. */
export function placed(
  d: Omit<Diagnostic, 'file' | 'line' | 'col' | 'override'>,
  origin: Origin | undefined,
  fileName: string,
  overrideTexts: readonly string[],
): Diagnostic {
  if (origin?.kind === 'file') return { ...d, file: fileName, line: origin.line, col: origin.col };
  if (origin?.kind === 'override') return { ...d, override: { index: origin.index, text: overrideTexts[origin.index - 1] ?? '' } };
  return { ...d };
}
