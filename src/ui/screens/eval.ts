// The Eval screen (5): the held-out eval of the open run, round after round (panels/eval.ts).
import type { EvalHistory } from '../../metrics/eval-history.js';
import type { RunView } from '../../session/types.js';
import { evalLines, type EvalPanelProps } from '../panels/eval.js';
import type { Line } from '../lines.js';

export function evalPanelProps(h: EvalHistory): EvalPanelProps {
  return {
    rounds: h.rounds,
    dropped: h.dropped,
    running: h.running,
    best: h.best,
    crash: h.crash,
    medianRoundS: h.medianRoundS(),
  };
}

export function evalScreenLines(run: RunView | null, width: number, height: number): Line[] {
  if (run === null) return [[{ t: 'No run selected: pick one on the Runs screen (1).', c: 'dim' }]];
  if (run.evals === undefined) return [[{ t: 'The eval rounds of this run are not known here.', c: 'dim' }]];
  return evalLines(evalPanelProps(run.evals), width, height);
}
