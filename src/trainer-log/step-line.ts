// One controller `Epoch e/E Step s/S Train step g/G done.` line read alone, without the stats
// tables that make it a step event: for a caller that has only that line (src/runs' attempt
// chain, whose target-side filter sends the last one of each attempt, not GBs of tables). Read
// with the parser's own grammar: its ANSI stripper, prefix, header and trainer time.
import type { StepEvent } from './events.js';
import { STEP_DONE } from './classify.js';
import { matchLinePrefix, parseHeader } from './header.js';
import { stripAnsi } from './text.js';

/** The step a lone `Train step … done.` line names (a controller's: unprefixed or merged.log's
 *  `[main]`), or null. */
export function stepDoneLine(line: string): Omit<StepEvent, 'stats'> | null {
  let body = stripAnsi(line).replace(/\r$/, '');
  const p = matchLinePrefix(body);
  if (p) {
    if (p.source !== 'main') return null;
    body = body.slice(p.length);
  }
  const h = parseHeader(body);
  const m = h ? STEP_DONE.exec(h.message) : null;
  if (!h || !m) return null;
  return {
    type: 'step',
    epoch: +m[1],
    epochs: +m[2],
    step: +m[3],
    stepsPerEpoch: +m[4],
    globalStep: +m[5],
    totalSteps: +m[6],
    time: h.time,
  };
}
