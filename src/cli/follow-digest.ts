// `follow` through what the run's sentinel keeps next to its log (src/session/run-digest.ts): its
// watch snapshot, else its digest; the log is read from where they end, instead of the whole log.
// Only the human lines. Through the snapshot the watch restores the state at its offset (the
// store's series projected to the rules' ones: src/watch/watch-snapshot.ts) and prints no line for
// the history before it but the alerts standing there; from there on its lines, every alert fired
// or cleared, the run's end and the exit code are a full read's, the first step's time measured
// from the snapshot's last step (StepProgress.continueFrom). Through the digest every line is a
// full read's (the digest keeps each step's reward and staleness). One refused (another version,
// keys or log, damaged) is said in one line and the next is used: the digest, then the whole log
// (test/sentinel/sentinel-digest-attach.test.ts). `follow --json` prints every stats key of every
// step, which neither keeps: it reads the whole log, as before. Neither file: today's attach.
import type { Transport } from '../remote/transport.js';
import type { WatchBackfill } from '../watch/run-watch.js';
import { backfill } from '../session/backfill.js';
import { digestPathFor, snapshotPathFor } from '../session/run-digest.js';

/** The raw tail read at attach: `follow` prints no pane, only the seam's records need it. */
const FOLLOW_TAIL_BYTES = 64 << 10;

/** The watch's backfill through the snapshot or the digest, or undefined (neither file: no
 *  backfill). `restored`: the watch took the snapshot (its lines go on from there). */
export async function followDigest(
  transport: Transport,
  logPath: string,
  say: (text: string) => void,
  restored: () => void,
): Promise<WatchBackfill | undefined> {
  const digest = digestPathFor(logPath);
  const snapshot = snapshotPathFor(logPath);
  const there = (p: string) =>
    transport.stat(p).then(
      (st) => st !== null,
      () => false,
    );
  const [hasDigest, hasSnapshot] = await Promise.all([there(digest), there(snapshot)]);
  if (!hasDigest && !hasSnapshot) return undefined;
  return {
    thresholdBytes: 0,
    // The tail comes with the silence's measure (and the byte before it: does it start a line).
    tailBytes: FOLLOW_TAIL_BYTES + 1,
    run: async (t, path, size, sink) => {
      const b = await backfill(t, path, size, {
        ...sink,
        restore: (s, reader) => {
          sink.restore(s, reader);
          restored();
        },
        onNote: say,
        cache: null,
        digest,
        snapshot: hasSnapshot ? snapshot : null,
        digestOnly: true,
        tailBytes: FOLLOW_TAIL_BYTES,
      });
      if (!b.digestBytes && !b.snapshotBytes && hasDigest)
        say(`the run's digest ${digest} is not this log's (or is damaged): reading the whole log`);
      return b;
    },
  };
}
