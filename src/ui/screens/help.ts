// The help overlay: every key from KEY_HELP, grouped by where it applies.
import { cell, fit } from '../format.js';
import { KEY_HELP } from '../keys.js';
import { titleLine, type Line } from '../lines.js';

export function helpLines(width: number): Line[] {
  const out: Line[] = [titleLine('Help — keys', width)];
  let where = '';
  for (const k of KEY_HELP) {
    if (k.where !== where) {
      where = k.where;
      out.push([{ t: where === 'input' ? 'while typing' : where, c: 'accent', bold: true }]);
    }
    out.push([{ t: '  ' + cell(k.keys, 17), bold: true }, { t: fit(k.what, width - 19) }]);
  }
  out.push([{ t: 'Press any key to close.', c: 'dim' }]);
  return out;
}
