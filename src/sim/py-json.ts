// Python's `json.dumps(obj)` byte for byte, for what the simulator dumps: separators `, ` and `: `,
// ensure_ascii (non-ASCII as \uXXXX), floats as Python writes them (`1.0`, not `1`). Pure.

/** A number Python holds as a float (JS cannot tell 1 from 1.0). */
export class PyFloat {
  constructor(readonly value: number) {}
}
export const pyFloat = (v: number): PyFloat => new PyFloat(v);

function floatText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e16) return `${v}.0`;
  return String(v).replace(/e([+-])(\d)$/, 'e$10$2');
}

function stringText(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function pyJsonDumps(v: unknown): string {
  if (v instanceof PyFloat) return floatText(v.value);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : floatText(v);
  if (typeof v === 'string') return stringText(v);
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(', ')}]`;
  const entries = Object.entries(v as Record<string, unknown>);
  return `{${entries.map(([k, x]) => `${stringText(k)}: ${pyJsonDumps(x)}`).join(', ')}}`;
}
