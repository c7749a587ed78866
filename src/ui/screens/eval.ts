// The Eval screen (5): the held-out eval of the open run, round after round (panels/eval.ts).
import type { EvalHistory } from '../../metrics/eval-history.js';
import type { RunView, WandbView } from '../../session/types.js';
import { evalLines, type EvalPanelProps } from '../panels/eval.js';
import { clipLine, type Line } from '../lines.js';

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
  const wandb = wandbLine(run.wandb);
  if (run.evals === undefined) return [[{ t: 'The eval rounds of this run are not known here.', c: 'dim' }], wandb];
  return [...evalLines(evalPanelProps(run.evals), width, height - 1), wandb].map((l) => clipLine(l, width));
}

/** The run's wandb run: its URL, an offline run's dir and upload command, or that the log named none. */
export function wandbLine(w: WandbView | undefined): Line {
  if (w === undefined) return [{ t: "wandb: no run in this run's log (disabled, or not started yet)", c: 'dim' }];
  if (w.url !== null)
    return [
      { t: 'wandb ', c: 'dim' },
      { t: w.url, c: 'accent' },
      ...(w.from === 'config' ? [{ t: ' (from the config: wandb has not printed it yet)', c: 'dim' as const }] : []),
    ];
  const where = w.offline?.dir ? `run data in ${w.offline.dir}; ` : '';
  return [{ t: 'wandb offline: ', c: 'warn' }, { t: `${where}upload it with: ${w.offline?.sync ?? 'wandb sync'}` }];
}
