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
  return oneLine(`${where}: ${d.severity} ${d.code} ${d.message}`);
}

/**
 * Control characters in a diagnostic (a value from a block scalar `seed: |` ends in a newline) written
 * as Python's repr writes them ('bad\n', '\t', '\x01', '\u2028'): each diagnostic stays one line, as
 * scripts and the cockpit read them. The Diagnostic's own message keeps OmegaConf's raw text.
 */
export function oneLine(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const n = c.charCodeAt(0);
    return n > 0xff ? `\\u${n.toString(16).padStart(4, '0')}` : `\\x${n.toString(16).padStart(2, '0')}`;
  });
}

/** Attach the position of the file line or override a value came from. */
export function placed(
  d: Omit<Diagnostic, 'file' | 'line' | 'col' | 'override'>,
  origin: Origin | undefined,
  fileName: string,
  overrideTexts: readonly string[],
): Diagnostic {
  if (origin?.kind === 'file') return { ...d, file: fileName, line: origin.line, col: origin.col };
  if (origin?.kind === 'override')
    return { ...d, override: { index: origin.index, text: overrideTexts[origin.index - 1] ?? '' } };
  return { ...d };
}
