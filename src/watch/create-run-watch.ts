// The one place a RunWatch is built (test/architecture/one-watch.test.ts holds every other room to it):
// the cockpit, the sentinel, `follow` and `alerts` all watch a run through here, so a default or a
// wiring the watch needs is added once, not in each caller.
import { RunWatch, type RunWatchOptions } from './run-watch.js';

/** A watch of one run: tail its log, judge it, poll its state (start it with `run()`). */
export function createRunWatch(options: RunWatchOptions): RunWatch {
  return new RunWatch(options);
}
