// A long log's history read through the target-side filter before following (the cockpit's
// WatchBackfill): its records ingested as they are read, its progress told as `history` outputs.
// A failure reads the whole log instead when nothing came yet, else follows on from the seam.
import type { TrainerLogReader } from '../trainer-log/index.js';
import type { LogSilence } from './follow-alerts.js';
import type { WatchBackfill } from './watch-options.js';
import type { WatchCore } from './watch-core.js';

/** Where following starts (and the reader holding any record open there); null: closed meanwhile. */
export async function backfillHistory(
  core: WatchCore,
  bf: WatchBackfill,
  first: LogSilence | null,
  signal: AbortSignal,
): Promise<{ from: number; reader?: TrainerLogReader } | null> {
  const { transport, logPath } = core.o;
  let from = 0;
  let reader: TrainerLogReader | undefined;
  let ingested = 0;
  let cut: number | null = null;
  try {
    // The silence's measure looked at the log's size a moment ago: a round trip less before the
    // history (the follower reads whatever came since, from the cut on).
    const st = first ? { size: first.size } : await transport.stat(logPath);
    if (st && st.size > bf.thresholdBytes && !core.closed) {
      core.dispatch({ type: 'backfill' });
      const started = core.clock();
      // Every backfilled byte was in the log when it was measured: it arrived when last written.
      const wall = first ? Math.min(core.clock(), first.measuredWall - first.silenceMs) : core.clock();
      const b = await bf.run(transport, logPath, st.size, {
        ...(first?.tail ? { tail: first.tail } : {}),
        onEvents: (events) => {
          if (core.closed) return;
          for (const e of events) core.ingest(e, true, wall);
          ingested += events.length;
        },
        onProgress: (p) => {
          cut = p.totalBytes;
          if (!core.closed) core.emit({ type: 'history', ...p });
        },
        signal,
        restore: (snap, r) => {
          if (core.closed) return;
          core.restore(snap, r, wall);
          // Its state is in: a failure from here on reads on from the seam, never the whole log again.
          ingested++;
        },
      });
      if (core.closed) return null;
      // A snapshot made before the config's wandb page was known: the attach's own, after it.
      core.announceWandb();
      // The history's last look is at the backfill's end, on the clock: a hang is seen now.
      core.tick();
      const mib = (n: number) => (n / 1048576).toFixed(n < 1048576 ? 2 : 1);
      const cached = b.cachedBytes ? `, ${mib(b.cachedBytes)} MiB of it from the cache` : '';
      core.emit({
        type: 'note',
        level: 'info',
        text: `history: ${mib(b.coveredBytes)} MiB of log backfilled with ${mib(b.sentBytes)} MiB sent${cached} (${b.records} records, ${core.clock() - started} ms)`,
      });
      from = b.offset;
      reader = b.reader;
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (core.closed) return null;
    if (ingested === 0 || cut === null) {
      // Nothing was read yet: read the whole log instead (slower, never wrong).
      core.emit({ type: 'note', level: 'warning', text: `backfill failed (${why}): reading the whole log` });
      from = 0;
    } else {
      // Part of the history is in: it is not read twice. Following starts at the seam.
      core.emit({
        type: 'note',
        level: 'warning',
        text: `backfill failed (${why}): the history before this point is incomplete`,
      });
      from = cut;
    }
    reader = undefined;
  }
  core.emit({ type: 'history', readBytes: null, totalBytes: null });
  return { from, ...(reader ? { reader } : {}) };
}
