// A server's keyboard-interactive prompt (a second factor asked again after `r`), as a dialog over
// the screen: the server's own words, what is typed (nothing of it when the server asks for no
// echo, as OpenSSH shows nothing), and the keys from the binding table.
import { hintLine } from '../bindings.js';
import { wrap } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import type { LoginPromptView } from '../../session/types.js';

export function loginPromptLines(p: LoginPromptView, typed: string, width: number): Line[] {
  const out: Line[] = [titleLine(`Log in to ${p.target}`, width, 'keyboard-interactive')];
  const asks = `${p.host} asks for a login step${p.instructions ? `: ${p.instructions}` : ''}`;
  for (const t of wrap(asks, width, 4)) out.push([{ t }]);
  out.push([]);
  const prompt = p.prompt.trimEnd();
  const shown = p.echo ? typed : '';
  out.push([{ t: `${prompt} `, bold: true, c: 'accent' }, { t: `${shown}▏` }]);
  if (!p.echo) out.push([{ t: '(what you type is not shown)', c: 'dim' }]);
  out.push([]);
  const once = 'Answered once for this connection: a refused answer is said, never tried again.';
  for (const t of wrap(once, width, 2)) out.push([{ t, c: 'dim' }]);
  out.push([{ t: hintLine('login', width), c: 'dim' }]);
  return out;
}
