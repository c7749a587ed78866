// A WatchCore that only takes records the way a backfill hands them (no reading, no parts, no
// clock, no connection): the cockpit's attach replayed where the run is, to snapshot its state
// (src/session/watch-replay.ts, watch-snapshot.ts). The same core and `ingest` as every watch.
import type { Transport } from '../remote/transport.js';
import type { RunWatchFacts } from '../runs/run-facts.js';
import { WatchCore } from './watch-core.js';

/** A transport that is never read: the core asks only whether it is connected. */
const NO_TRANSPORT = { state: { state: 'ready' } } as unknown as Transport;

/** The core as an attach has it when the history starts (the lifecycle backfilling); its caller
 *  announces the config's wandb page (`announceWandb`) once it listens, as an attach does.
 *  `storeCapacity`: a test's smaller store; `storeSeries`: 'rules', `follow`'s (a test restores the
 *  snapshot into it). */
export function createReplayCore(
  facts: RunWatchFacts,
  o: { storeCapacity?: number; storeSeries?: 'all' | 'rules' } = {},
): WatchCore {
  const core = new WatchCore(
    {
      ...o,
      transport: NO_TRANSPORT,
      target: {
        name: 'replay',
        host: 'local',
        workdir: '.',
        python: 'python3',
        backend: 'direct',
        slurm: { extraArgs: [] },
      },
      runId: 'replay',
      logPath: 'replay',
      whenEnded: 'stop',
      facts,
    },
    () => undefined,
  );
  core.dispatch({ type: 'backfill' });
  return core;
}
