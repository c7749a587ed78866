// What the watch-snapshot tests share: the view context a replayed dashboard is derived in (a
// running run, connected, no GPUs or trainer lines: only the log's records differ between two
// replays) and line ends at given parts of a log (a cut wherever it falls: in a table, a traceback).
import type { RunViewContext } from '../../src/session/run-records.js';

export const QUIET_CONTEXT: RunViewContext = {
  summary: { id: 'r', target: 't', state: 'running', step: null, totalSteps: null, reward: null, lastStepAt: null },
  connection: { state: 'ready' },
  connectionAt: 0,
  gpus: [],
  trainerLines: { lines: [], midLog: false } as never,
  pollingStoppedS: null,
};

/** The offset just after the first line end at or after `part` (0..1) of `bytes`. */
export const lineEndNear = (bytes: Buffer, part: number): number =>
  bytes.indexOf(0x0a, Math.floor(bytes.length * part)) + 1;
