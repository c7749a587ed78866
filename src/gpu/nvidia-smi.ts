// Pure parser for `nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]` and
// `--query-compute-apps=…`. With a header, cells may carry units (`0 MiB`, `78.00 W`, `0 %`) and
// the header names are not always the query names (`clocks.sm` prints `clocks.current.sm [MHz]`),
// so rows are keyed by the query fields when the caller gives them, else by the header names.

export type SmiValue = number | string | null;

export interface SmiTable {
  fields: string[];
  /** Unit per column from the header (`MiB`, `%`), null when none or no header. */
  units: (string | null)[];
  rows: Record<string, SmiValue>[];
  /** Lines that are nvidia-smi messages, not rows (a GPU it cannot reach, a warning): one cell
   *  where several fields were asked for. */
  notes: string[];
}

export class NvidiaSmiError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'NvidiaSmiError';
  }
}

export interface SmiParseOptions {
  /** The fields as queried, in order (e.g. from `--query-gpu=`). */
  fields?: string[];
  /** Whether the first line is a header; detected when omitted. */
  header?: boolean;
}

const BAD_FIELD = /Field "([^"]*)" is not a valid field to query/;
const HEADER_CELL = /^[A-Za-z][\w.]*(?: \[[^\]]+\])?$/;
const NUMBER_WITH_UNIT = /^(-?\d+(?:\.\d+)?)(?: ?(?:MiB|GiB|KiB|B|W|%|MHz|GHz|C|V|mV|s|ms|us))?$/;
/** Fields that look numeric but are names (kept as text). */
const TEXT_FIELDS = new Set([
  'name',
  'uuid',
  'gpu_uuid',
  'serial',
  'pci.bus_id',
  'gpu_bus_id',
  'driver_version',
  'vbios_version',
  'timestamp',
  'process_name',
  'gpu_name',
]);

/** The message nvidia-smi prints for an unknown query field, as an error; null if none. */
export function smiFieldError(text: string): NvidiaSmiError | null {
  const m = BAD_FIELD.exec(text);
  if (!m) return null;
  return new NvidiaSmiError(
    `nvidia-smi does not know the query field "${m[1]}" (see nvidia-smi --help-query-gpu)`,
    m[1],
  );
}

export function splitCsvLine(line: string): string[] {
  return line.split(',').map((c) => c.trim());
}

/** `[N/A]`, `[Not Supported]`, `[Unknown Error]`, `N/A` … -> null; numbers (units stripped) -> number. */
export function smiValue(cell: string, field?: string): SmiValue {
  if (cell === '' || cell === 'N/A' || (cell.startsWith('[') && cell.endsWith(']'))) return null;
  if (field !== undefined && TEXT_FIELDS.has(field)) return cell;
  const m = NUMBER_WITH_UNIT.exec(cell);
  return m ? Number(m[1]) : cell;
}

function isHeader(cells: string[], fields?: string[]): boolean {
  if (!(cells.length > 0 && cells.every((c) => HEADER_CELL.test(c)))) return false;
  if (!fields) return true;
  // With the query known, a word like `Default` (compute_mode) or `P0` (pstate) is data. A header
  // has at least one cell that is its field's name, a dotted/underscored name (clocks.sm prints
  // clocks.current.sm, gpu_name prints name) or carries a unit.
  return cells.some((c, j) => c.includes('[') || /[._]/.test(c) || c === fields[j]);
}

export function parseSmiCsv(text: string, opts: SmiParseOptions = {}): SmiTable {
  const err = smiFieldError(text);
  if (err) throw err;
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  let fields = opts.fields ? [...opts.fields] : [];
  let units: (string | null)[] = fields.map(() => null);
  let start = 0;
  const first = lines.length > 0 ? splitCsvLine(lines[0]) : [];
  const hasHeader = opts.header ?? isHeader(first, opts.fields);
  if (hasHeader && lines.length > 0) {
    start = 1;
    const names = first.map((c) => c.replace(/ \[[^\]]+\]$/, ''));
    units = first.map((c) => /\[([^\]]+)\]$/.exec(c)?.[1] ?? null);
    if (!opts.fields) fields = names;
  }
  const rows: Record<string, SmiValue>[] = [];
  const notes: string[] = [];
  for (let i = start; i < lines.length; i++) {
    const cells = splitCsvLine(lines[i]);
    if (fields.length >= 2 && cells.length === 1) {
      notes.push(lines[i].trim());
      continue;
    }
    const row: Record<string, SmiValue> = {};
    const n = Math.max(cells.length, fields.length);
    for (let j = 0; j < n; j++) {
      const f = fields[j] ?? String(j);
      row[f] = cells[j] === undefined ? null : smiValue(cells[j], f);
    }
    rows.push(row);
  }
  return { fields, units, rows, notes };
}
