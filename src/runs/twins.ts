// What a (re)launch checks on the target before anything is created there, in the order the user
// needs the answers: the workdir exists, then no run of the same experiment+trial is active (the
// twin check, with the exact stop command to copy), and only then the pre-flight's heavier checks.
import type { Transport } from '../remote/transport.js';
import { shellQuote } from '../remote/quote.js';
import type { Target } from './targets.js';
import { listRuns, type RunSummary } from './list.js';
import { mayBeActive } from './run-state.js';
import { RunError } from './run-error.js';

/** `--target T [-F FILE] --workdir W [--setup LINE]`: the words that name the target again in
 *  advice, with what reaches it (a command copied without -F or --setup finds no run), when the
 *  caller has none better (the CLI passes the very flags the user typed). */
export function defaultWhere(
  t: Pick<Target, 'name' | 'workdir'> & Partial<Pick<Target, 'sshConfigFile' | 'setup' | 'setupTimeoutS'>>,
): string {
  return [
    `--target ${shellQuote(t.name)}`,
    ...(t.sshConfigFile ? [`-F ${shellQuote(t.sshConfigFile)}`] : []),
    `--workdir ${shellQuote(t.workdir)}`,
    ...(t.setup ? [`--setup ${shellQuote(t.setup)}`] : []),
    ...(t.setup && t.setupTimeoutS ? [`--setup-timeout ${t.setupTimeoutS}`] : []),
  ].join(' ');
}

/** The checkout must exist (exit 2, `workdir-missing`): runs, follow, watch and launch say so alike. */
export async function assertWorkdir(transport: Transport, t: Pick<Target, 'name' | 'workdir'>): Promise<void> {
  if ((await transport.stat(t.workdir)) === null) {
    throw new RunError(
      `workdir ${t.workdir} does not exist on ${t.name}: give --workdir the AsyncWebRL checkout there`,
      2,
      'workdir-missing',
    );
  }
}

export interface TwinCheck {
  /** Runs of the same experiment+trial that are NOT active: the start script lets them be. */
  allowed: string[];
}

/** `already running`, or for a run squeue could not be asked about, `of unknown state (why)`. */
export function stateWords(r: { state: string; detail: string }): string {
  if (r.state === 'unknown') return `of unknown state (${r.detail})`;
  return r.state === 'submitted' && /being launched/.test(r.detail) ? 'being launched' : `already ${r.state}`;
}

/**
 * Refuses (RunError `run-active`) when a run of this experiment+trial may be active on the target,
 * unless `force`; `except` is the run being resumed. The message carries the full stop command.
 */
export async function checkTwins(
  transport: Transport,
  t: Target,
  q: {
    experiment: string;
    trial: string;
    except?: string;
    force?: boolean;
    where?: string;
    /** What else lifts the refusal, said after the stop command (default `or pass --force`). */
    orElse?: string;
  },
): Promise<TwinCheck & { runs: RunSummary[] }> {
  const runs = await listRuns(transport, t, { tailBytes: 0 });
  const same = runs.filter(
    (r) => r.runId !== q.except && r.record.experiment === q.experiment && r.record.trial === q.trial,
  );
  const active = same.find((r) => mayBeActive(r.state));
  if (active && !q.force) {
    throw new RunError(
      `run ${active.runId} of this trial is ${stateWords(active)} on ${t.name}: ` +
        `stop it first (awrl-tui stop ${active.runId} ${q.where ?? defaultWhere(t)}) ${q.orElse ?? 'or pass --force'}`,
      2,
      'run-active',
    );
  }
  return { allowed: same.filter((r) => !mayBeActive(r.state)).map((r) => r.runId), runs };
}

/** The substring of run.json that names the experiment+trial (serializeRunRecord's field order). */
export function twinKey(experiment: string, trial: string): string {
  return `"experiment":${JSON.stringify(experiment)},"trial":${JSON.stringify(trial)},`;
}
