// A run's whole history by step, read once, for `compare` (and for a baseline pinned in the
// cockpit before it follows): the log through the one backfill (the target-side filter, gzip, the
// local cache: what attaching to the run costs), its records through the one reader
// (TrainerLogReader), kept by src/metrics' RunSteps. A local log file goes through the same path
// on the `local` transport.
import type { Transport } from '../remote/transport.js';
import { RunSteps, type RunStepsOptions, type RunStepsView } from '../metrics/run-steps.js';
import { STEP_TIME_KEY } from '../metrics/step-times.js';
import { BACKFILL_KEYS } from './backfill-filter.js';
import { backfill, defaultBackfillCache } from './backfill.js';
import type { BackfillCache } from './backfill-cache.js';

export type HistoryRead =
  | { log: 'read'; steps: RunStepsView; bytes: number; sentBytes: number; cachedBytes: number }
  /** The log is not there (never written, or removed): no series, said as such. */
  | { log: 'missing'; path: string };

export interface ReadHistoryOptions extends RunStepsOptions {
  /** The cache of the cockpit's backfills (default: the user's), used when the keys are among
   *  what it keeps; null: none. */
  cache?: BackfillCache | null;
}

/** Whether every key's table rows are among what the default backfill keeps (its keys are matched
 *  as substrings of a row: `timeperf/` keeps every phase). */
function keptByDefault(keys: readonly string[]): boolean {
  return keys.every((k) => BACKFILL_KEYS.some((b) => k.includes(b)));
}

export async function readRunHistory(
  transport: Transport,
  logPath: string,
  o: ReadHistoryOptions,
): Promise<HistoryRead> {
  const st = await transport.stat(logPath);
  if (!st) return { log: 'missing', path: logPath };
  const steps = new RunSteps(o);
  // The step time is derived here, from the records' times: no table row holds it.
  const wanted = [...o.keys, ...(o.prefixes ?? [])].filter((k) => k !== STEP_TIME_KEY);
  const plain = keptByDefault(wanted);
  const r = await backfill(transport, logPath, st.size, {
    onEvents: (events) => {
      for (const e of events) steps.ingest(e);
    },
    cache: plain ? (o.cache === undefined ? defaultBackfillCache() : o.cache) : null,
    ...(plain ? {} : { keys: [...new Set([...BACKFILL_KEYS, ...wanted])] }),
  });
  // The records still open where the history ends (a held end record) are closed: this is a snapshot.
  for (const e of r.reader.end().events) steps.ingest(e);
  return { log: 'read', steps: steps.view(), bytes: r.offset, sentBytes: r.sentBytes, cachedBytes: r.cachedBytes };
}
