// Runs real OmegaConf (Debian python3-omegaconf, /usr/bin/python3: the pyenv python3 on PATH
// does not have it) over a batch of cases in ONE process and returns its answers.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./omegaconf_ref.py', import.meta.url));

export type RefCase =
  | { kind: 'yaml'; text: string }
  | { kind: 'apply'; text: string; overrides: { kind: string; key: string; value?: unknown }[] }
  | { kind: 'coerce'; type: 'int' | 'float' | 'bool' | 'str'; optional?: boolean; value: unknown }
  | { kind: 'repr'; values: string[] }
  | { kind: 'structured'; schema: unknown; text: string; overrides?: { kind: string; key: string; value?: unknown }[] };

export type RefResult = { ok: unknown } | { stage: string; error: string; message: string; index?: number };

export function omegaconfAvailable(): boolean {
  if (!existsSync(PYTHON)) return false;
  const r = spawnSync(PYTHON, ['-c', 'import omegaconf'], { encoding: 'utf8' });
  return r.status === 0;
}

export function runOmegaConf(cases: RefCase[]): RefResult[] {
  const r = spawnSync(PYTHON, [SCRIPT], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`omegaconf reference failed (${r.status}): ${r.stderr}`);
  const out = JSON.parse(r.stdout) as RefResult[];
  if (out.length !== cases.length)
    throw new Error(`omegaconf reference answered ${out.length} of ${cases.length} cases`);
  return out;
}
