// Processes tagged with ANOTHER run's id (AWRL_RUN_ID) hold GPUs: whether that run is still going
// decides what they are. A running run's processes are its own, in use, and stopping them kills a
// healthy run; only an ended run's are leftovers. So the run's state is asked (src/runs' one list
// script) before anything is called a leftover or `stop` is advised, and a state that could not
// be asked is said so: never "leftover" on a guess.
import type { Transport } from '../remote/transport.js';
import { defaultWhere, isTerminal, listRuns, type RunState, type Target } from '../runs/index.js';
import type { Leftover } from './leftovers.js';

/** What is known of another run whose processes were found. */
export interface OtherRunStatus {
  /** Its state on this target; null: not known (`why` says why). */
  state: RunState | null;
  step?: number;
  totalSteps?: number;
  why?: string;
}

/** Each run id's state, asked once per run on `target` (its workdir's runs). A run not there (another
 *  checkout, another user's) or a list that failed is `state: null` with the reason. */
export async function otherRunStates(
  transport: Transport,
  target: Target,
  runIds: Iterable<string>,
): Promise<Map<string, OtherRunStatus>> {
  const ids = [...new Set(runIds)].filter((id) => id !== '' && id !== '?');
  const out = new Map<string, OtherRunStatus>();
  await Promise.all(
    ids.map(async (id) => {
      try {
        const [s] = await listRuns(transport, target, { only: id, tailBytes: 64 * 1024 });
        out.set(
          id,
          s
            ? {
                state: s.state,
                ...(s.globalStep !== undefined ? { step: s.globalStep } : {}),
                ...(s.totalSteps !== undefined ? { totalSteps: s.totalSteps } : {}),
              }
            : { state: null, why: `not a run under ${target.workdir}` },
        );
      } catch (err) {
        out.set(id, { state: null, why: `its state could not be asked: ${(err as Error).message}` });
      }
    }),
  );
  return out;
}

/** `list` with each other run's state (`Leftover.otherRun`), asked once per run. */
export async function withOtherRuns(
  transport: Transport,
  target: Target,
  list: readonly Leftover[],
): Promise<Leftover[]> {
  const ids = list.flatMap((l) => (!l.tagged && l.otherRunId ? [l.otherRunId] : []));
  if (ids.length === 0) return [...list];
  const states = await otherRunStates(transport, target, ids);
  return list.map((l) => {
    const s = !l.tagged && l.otherRunId ? states.get(l.otherRunId) : undefined;
    return s ? { ...l, otherRun: s } : l;
  });
}

/** The run may still be going (running, queued, or its state not known): its processes are not leftovers. */
export const mayBeInUse = (s: OtherRunStatus | undefined): boolean => !s || s.state === null || !isTerminal(s.state);

/** `in use by running run X (step 9/64)`, `leftover of run X (failed)`, `of run X (state unknown: why)`. */
export function otherRunWords(runId: string, s: OtherRunStatus | undefined): string {
  if (!s) return `of run ${runId} (its state not checked)`;
  if (s.state === null) return `of run ${runId} (${s.why ?? 'its state is unknown'})`;
  if (isTerminal(s.state)) return `leftover of run ${runId} (${s.state})`;
  const step = s.step !== undefined ? ` (step ${s.step}/${s.totalSteps ?? '?'})` : '';
  return `in use by ${s.state} run ${runId}${step}`;
}

/** What to do about GPUs other runs hold: stop the ended runs' leftovers; for a run that may be going,
 *  wait, take other GPUs or nodes, or stop it deliberately. Every command with the options that
 *  reach the target (`-F`, `--workdir`, `--setup`). */
export function otherRunsAdvice(
  runs: ReadonlyMap<string, OtherRunStatus | undefined>,
  target: Pick<Target, 'name' | 'workdir' | 'sshConfigFile' | 'setup'>,
): string {
  const where = defaultWhere(target);
  const ended = [...runs].filter(([, s]) => !mayBeInUse(s)).map(([id]) => id);
  const live = [...runs].filter(([, s]) => mayBeInUse(s)).map(([id]) => id);
  const parts: string[] = [];
  if (ended.length > 0)
    parts.push(`Stop the leftovers of ended runs: ${ended.map((r) => `awrl-tui stop ${r} ${where}`).join('; ')}.`);
  if (live.length > 0) {
    const which =
      live.length === 1 ? `Run ${live[0]} may still be going` : `Runs ${live.join(', ')} may still be going`;
    parts.push(
      `${which} (awrl-tui runs ${where}): wait for it to end, use other GPUs or nodes, or stop it deliberately ` +
        `(${live.map((r) => `awrl-tui stop ${r} ${where}`).join('; ')}: that ends the run).`,
    );
  }
  return parts.join(' ');
}
