// `follow` through the run's sentinel digest (src/session/run-digest.ts): where the run has one, the
// watch's history comes from it and the log is read from where it ends, instead of the whole log.
// Only the human lines: they read a step's reward and staleness, which the digest keeps, so they are
// the lines a full read prints (test/sentinel/sentinel-digest-follow.test.ts). `follow --json` prints
// every stats key of every step and the digest keeps only the panels' and rules' keys: it reads the
// whole log, as before (a JSON consumer never gets a step with fewer keys). No digest file: today's
// attach, unchanged (no backfill at all); a digest that is not this log's or is damaged: the whole log.
import type { Transport } from '../remote/transport.js';
import type { WatchBackfill } from '../watch/run-watch.js';
import { backfill } from '../session/backfill.js';
import { digestPathFor } from '../session/run-digest.js';

/** The watch's backfill through the digest, or undefined (no digest file: no backfill). */
export async function followDigest(
  transport: Transport,
  logPath: string,
  say: (text: string) => void,
): Promise<WatchBackfill | undefined> {
  const digest = digestPathFor(logPath);
  const st = await transport.stat(digest).catch(() => null);
  if (!st) return undefined;
  return {
    thresholdBytes: 0,
    run: async (t, path, size, sink) => {
      const b = await backfill(t, path, size, { ...sink, cache: null, digest, digestOnly: true, tailBytes: 64 << 10 });
      if (!b.digestBytes) say(`the run's digest ${digest} is not this log's (or is damaged): reading the whole log`);
      return b;
    },
  };
}
