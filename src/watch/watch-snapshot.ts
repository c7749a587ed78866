// A snapshot of a watch's state at a log offset (issue #30): what attaching needs to show the full
// dashboard and go on judging without reading the log's history. It is made by replaying the same
// records the same way (src/session/watch-replay.ts: the backfill filter's kept lines, through a
// WatchCore's own `ingest`), so restoring it and reading the log from its offset gives the state a
// full read gives (test/watch/watch-snapshot.test.ts compares them at several cuts).
//
// What it holds: the reader's parser (records open at the offset), the store (its series bounded
// and downsampled as they are: MetricsStore's buckets), the rules (health monitor, error tracker,
// the alert history, the eval rounds), what the core last told (AlertChanges), the config facts it
// was made with, and a renderer's own state (the cockpit's RunRecords: its rings and the steps'
// time axes). Not held (the attaching watch's own): the lifecycle, the clock's marks (restored as a
// backfill leaves them: its records arrive at the attach's wall time), the run's state, the parts.
// Encoded with src/health's state-graph (the classes' fields as they are): gzipped, the graph's
// JSON, a newline (JSON text has none), and the typed arrays' bytes. Version 2: version 1 held the
// typed arrays as base64 in the JSON (10× slower to write, for a long run's state).
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  adoptState,
  classRegistry,
  decodeGraph,
  encodeGraph,
  GraphError,
  REWIRED_FUNCTIONS,
  SCRATCH_FIELDS,
  STATE_CLASSES,
  type EncodedGraph,
  type RunAlerts,
} from '../health/index.js';
import type { MetricsStore } from '../metrics/index.js';
import type { TrainerLogParser, TrainerLogReader } from '../trainer-log/index.js';
import type { RunWatchFacts } from '../runs/run-facts.js';
import { AlertChanges } from './watch-output.js';

export const SNAPSHOT_VERSION = 2;

const CLASSES = classRegistry([...STATE_CLASSES, AlertChanges]);

export interface WatchState {
  parser: TrainerLogParser;
  store: MetricsStore;
  alerts: RunAlerts;
  changes: AlertChanges;
  /** A renderer's own state from the records (the cockpit's RunRecords.snapshotState). */
  view: unknown;
}

export interface WatchSnapshot extends WatchState {
  /** The config facts the rules judged with (canonical JSON): another config's verdicts differ. */
  facts: string;
}

/** The facts as the snapshot compares them: those the rules judge by (their verdicts, and so the
 *  alert history, depend on them). Not the wandb page the config makes: the sentinel may have read
 *  it before its id file was written, and a snapshot without it gets the attach's own
 *  (`announceWandb` after the history). */
export function factsKey(f: RunWatchFacts): string {
  const { consumerBatchSize, maxHeadOffpolicyness, recoverFreqSecs, behavImpWeightCap } = f;
  return JSON.stringify({ consumerBatchSize, maxHeadOffpolicyness, recoverFreqSecs, behavImpWeightCap });
}

/** The snapshot's bytes; a GraphError when a part cannot be written exactly. */
export function encodeWatchSnapshot(s: WatchState, facts: RunWatchFacts): Buffer {
  const { graph, bytes } = encodeGraph(s, CLASSES, { rewired: REWIRED_FUNCTIONS, scratch: SCRATCH_FIELDS });
  const json = JSON.stringify({ v: SNAPSHOT_VERSION, facts: factsKey(facts), graph });
  // Two gzip members, one stream to gunzip: the bytes are not copied after the JSON first.
  return Buffer.concat([gzipSync(`${json}\n`, { level: 1 }), gzipSync(bytes, { level: 1 })]);
}

/** The snapshot in these bytes; a GraphError (said to the user) when they are not one of this version. */
export function decodeWatchSnapshot(bytes: Buffer): WatchSnapshot {
  let doc: { v?: unknown; facts?: unknown; graph?: EncodedGraph };
  let typed: Buffer;
  try {
    const all = gunzipSync(bytes);
    const end = all.indexOf(0x0a);
    doc = JSON.parse(all.toString('utf8', 0, end < 0 ? all.length : end)) as typeof doc;
    typed = all.subarray(end < 0 ? all.length : end + 1);
  } catch (e) {
    throw new GraphError(`it does not parse (${(e as Error).message})`);
  }
  if (doc.v !== SNAPSHOT_VERSION) throw new GraphError(`it is of version ${String(doc.v)}, not ${SNAPSHOT_VERSION}`);
  if (typeof doc.facts !== 'string' || !doc.graph) throw new GraphError('it is not whole');
  const s = decodeGraph(doc.graph, CLASSES, typed) as Partial<WatchState>;
  const { parser, store, alerts, changes } = s;
  if (!parser || !store || !alerts || !(changes instanceof AlertChanges)) throw new GraphError('it is not whole');
  return { parser, store, alerts, changes, view: s.view, facts: doc.facts };
}

/** Whether a snapshot's store can become this watch's: made with the same capacity and key cap,
 *  keeping every series this one keeps (`follow` keeps only the rules': the snapshot's others are
 *  dropped, as its store would never have made them). */
function fitStore(into: MetricsStore, from: MetricsStore): boolean {
  const a = into.shape;
  const b = from.shape;
  if (a.capacity !== b.capacity || a.maxKeys !== b.maxKeys) return false;
  const keeps = a.seriesKeys;
  if (!keeps) return b.seriesKeys === null;
  if (b.seriesKeys && [...keeps].some((k) => !b.seriesKeys!.has(k))) return false;
  return from.narrow(keeps);
}

/** The watch's own objects take the snapshot's state (others hold them: they stay the same objects);
 *  a GraphError when it is another config's or another kind of store's. */
export function restoreWatchState(
  into: { store: MetricsStore; alerts: RunAlerts; changes: AlertChanges; reader: TrainerLogReader },
  s: WatchSnapshot,
  facts: RunWatchFacts,
  arrivedWall: number,
): void {
  if (s.facts !== factsKey(facts)) throw new GraphError('it was made with other config facts');
  if (!fitStore(into.store, s.store)) throw new GraphError("its store is not this watch's kind");
  adoptState(into.store, s.store);
  into.alerts.adoptState(s.alerts, arrivedWall);
  adoptState(into.changes, s.changes);
  into.reader.adoptParser(s.parser);
}
