// The summary of an episode without its steps. The trainer writes the record's keys in a fixed order
// (webgym-dumps.md: task_id … task_info, then `steps` last), and the steps hold the prompts (MBs over
// a long episode), so a listing reads only the head of each file and closes the object before
// `steps`. Pure: a scanner of JSON text that knows strings and nesting, nothing more.

/** Where the top-level key `key` starts in `text` (the index of its opening quote), or -1 when the
 *  text ends before it (a head cut short, or a file still being written). */
export function topLevelKeyAt(text: string, key: string): number {
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      if (depth === 1 && expectKey && text.slice(i + 1, end) === key) return i;
      i = end;
      expectKey = false;
    } else if (c === '{' || c === '[') {
      depth++;
      expectKey = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') {
      depth--;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
    }
  }
  return -1;
}

/** The index of the closing quote of the string opened at `start`, or -1 when it is not closed. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** The record's fields before `steps`, parsed, or null when the head ends before `steps` (the
 *  caller reads more) or is not JSON. */
export function headBeforeSteps(text: string): Record<string, unknown> | null {
  const at = topLevelKeyAt(text, 'steps');
  if (at < 0) return null;
  const body = text.slice(0, at).replace(/,\s*$/, '');
  try {
    const v: unknown = JSON.parse(`${body}}`);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
