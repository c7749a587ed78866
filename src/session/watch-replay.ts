// The cockpit's attach replayed where the run is, to snapshot its state (src/watch/watch-snapshot.ts):
// the backfill filter's kept lines go through a reader, a WatchCore's own `ingest` (the rules look
// before a record, the store takes it, the rules look after it) and the cockpit's RunRecords, in
// the order and the way a backfill feeds them (the config's wandb page first, every record
// `backfilled`). Nothing is computed here: the same code a full read runs, so restoring its
// snapshot and reading the rest of the log gives what a full read gives.
import type { RunWatchFacts } from '../runs/run-facts.js';
import { TrainerLogReader } from '../trainer-log/index.js';
import type { WatchCore } from '../watch/watch-core.js';
import { createReplayCore } from '../watch/replay-core.js';
import { decodeWatchSnapshot, encodeWatchSnapshot } from '../watch/watch-snapshot.js';
import { RunRecords } from './run-records.js';

export class WatchReplay {
  private readonly core: WatchCore;
  private readonly reader = new TrainerLogReader();
  private readonly records: RunRecords;

  /** `storeCapacity`: a test's smaller store (its series merge buckets sooner); default the watch's.
   *  `storeSeries: 'rules'`: `follow`'s store (a test restores the cockpit's snapshot into it). */
  constructor(
    private readonly facts: RunWatchFacts,
    opts: { storeCapacity?: number; storeSeries?: 'all' | 'rules' } = {},
  ) {
    this.core = createReplayCore(facts, opts);
    this.records = new RunRecords({ store: this.core.store, alerts: this.core.alerts, clock: () => 0 });
    this.core.on((o) => {
      if (o.type === 'record') this.records.ingest(o.record);
    });
    this.core.announceWandb();
  }

  /** Kept lines of the log, in order (any chunking). */
  push(plain: Buffer): void {
    for (const e of this.reader.pushEventsOnly(plain)) this.core.ingest(e, true, 0);
  }

  /** Goes on from a snapshot (as an attach does: test/watch/watch-snapshot.test.ts); a GraphError
   *  or Error when it is not one this replay can take. */
  restore(bytes: Buffer, arrivedWall = 0): void {
    const s = decodeWatchSnapshot(bytes);
    this.core.restore(s, this.reader, arrivedWall);
    this.records.restoreState(s.view);
  }

  /** Listens to the core's outputs (a test compares what two replays tell). */
  on(listener: Parameters<WatchCore['on']>[0]): () => void {
    return this.core.on(listener);
  }

  /** The dashboard's records (a test compares the views). */
  get view(): RunRecords {
    return this.records;
  }

  /** The snapshot's bytes at this point; a GraphError when a part cannot be written exactly. */
  snapshot(): Buffer {
    return encodeWatchSnapshot(this.core.snapshotState(this.reader, this.records.snapshotState()), this.facts);
  }
}
