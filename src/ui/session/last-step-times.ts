// When each listed run's last step was done. The runs list reads step and reward from each log's
// tail but not the step's time, so the Runs screen showed `—` under "last step" until the run was
// opened and followed. This reads the time from the log's tail once per new step (the same tail
// size the list reads), so a run whose step did not change costs nothing more.
import type { RunSummary as RunsSummary } from '../../runs/index.js';
import { runLogPath } from '../../runs/index.js';
import type { Transport } from '../../remote/transport.js';
import { parseLogBytes } from '../../trainer-log/parser.js';
import { localTimeMs } from './event-log-line.js';

const TAIL_BYTES = 64 * 1024;

export class LastStepTimes {
  /** By `target/runId`: the step whose time is known, and that time. */
  private readonly known = new Map<string, { step: number; at: number }>();

  /** Epoch ms of the last step of `run` as listed, when already known (no I/O). */
  get(target: string, run: Pick<RunsSummary, 'runId' | 'globalStep'>): number | null {
    const k = this.known.get(`${target}/${run.runId}`);
    return k && k.step === run.globalStep ? k.at : null;
  }

  /** Read the time of every listed run's last step not known yet; false when nothing was new. */
  async update(target: string, transport: Transport, runs: RunsSummary[]): Promise<boolean> {
    const todo = runs.filter((r) => r.globalStep !== undefined && this.get(target, r) === null);
    const found = await Promise.all(todo.map((r) => lastStepTime(transport, r).catch(() => null)));
    let any = false;
    todo.forEach((r, i) => {
      const at = found[i];
      // Not found (the step's record was cut, the log unreadable): asked again next round.
      if (at !== null && at !== undefined) {
        this.known.set(`${target}/${r.runId}`, { step: r.globalStep!, at });
        any = true;
      }
    });
    return any;
  }
}

/** The time of the `Train step g/G done.` record for the listed step, from the log's tail. */
async function lastStepTime(transport: Transport, run: RunsSummary): Promise<number | null> {
  const path = runLogPath(run.record);
  const st = await transport.stat(path);
  if (!st) return null;
  const offset = Math.max(0, st.size - TAIL_BYTES);
  let bytes = await transport.readFile(path, { offset, length: st.size - offset });
  // A tail that starts mid-line begins at its first full line.
  if (offset > 0) {
    const nl = bytes.indexOf(0x0a);
    bytes = nl >= 0 ? bytes.subarray(nl + 1) : bytes;
  }
  let at: number | null = null;
  for (const e of parseLogBytes(bytes)) if (e.type === 'step' && e.globalStep === run.globalStep) at = localTimeMs(e.time);
  return at;
}
