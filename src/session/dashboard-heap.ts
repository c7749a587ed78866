// The dashboard's V8 heap, kept near what it holds. A dashboard holds ~20 MB (the series, the rings,
// the rules' windows), but V8 sizes its heap for the bursts: reading a long log's history is a
// burst of short-lived records, after which the young generation has grown to 2 × 16 MiB and the
// old generation may grow to 4× what survived its last full collection before the next one. V8
// gives neither back while the dashboard runs. Measured on a 1.1 GB log (`npm run bench -- attach`,
// figures in src/session/README.md): the peak RSS of an attach fell from 157 MB (ssh) and 144 MB
// (local) to ≈ 115–125 and 95 MB, and of a dashboard following the log from its start from 196 MB
// to ≈ 117, with the same CPU time.
// The flags are set at run time (v8.setFlagsFromString): both are read by V8 at each collection.
// The launcher's #! line cannot take them: it is 113 bytes, and Linux before 5.1 cuts the line at
// 127 (`--max-semi-space-size` would do what the second one does, only at start-up).
import { setFlagsFromString } from 'node:v8';

/** The old generation grows by half of what survived the last full collection (V8: up to 4×). A
 *  full collection of a ~20 MB heap takes a few ms; frames and CPU time are unchanged. */
const OLD_GENERATION_GROWTH = '--heap-growing-percent=50';
/** The young generation keeps its size (V8's default: it doubles up to 16 MiB per semi-space
 *  once enough survived). Held while a history is read only: a frame at 200×50 allocates several
 *  MiB, and with the smallest young generation the ui bench's frames took 1.5× as long. */
const YOUNG_KEEPS_SIZE = '--semi-space-growth-factor=1';
const YOUNG_GROWS = '--semi-space-growth-factor=2';

let bounded = false;
let held = 0;

/** For the process's lifetime, once: the cockpit's entry and the benches that measure it. */
export function boundDashboardHeap(): void {
  if (bounded) return;
  bounded = true;
  setFlagsFromString(OLD_GENERATION_GROWTH);
}

/** The young generation does not grow until the returned release is called (a burst: the
 *  history of a long log). Nested holds (two runs attached at once) release at the last. */
export function holdYoungGeneration(): () => void {
  if (held++ === 0) setFlagsFromString(YOUNG_KEEPS_SIZE);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--held === 0) setFlagsFromString(YOUNG_GROWS);
  };
}
