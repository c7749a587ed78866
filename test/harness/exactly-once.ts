// "Every byte exactly once": what a follower delivered, checked against the file's own bytes.
import { expect } from 'vitest';
import type { FollowEvent } from '../../src/remote/index.js';

/** How many bytes the data events carried. */
export const received = (events: FollowEvent[]): number =>
  events.reduce((a, e) => a + (e.type === 'data' ? e.bytes.length : 0), 0);

/** The data events' bytes, in order. */
export const bytesOf = (events: FollowEvent[]): Buffer =>
  Buffer.concat(events.flatMap((e) => (e.type === 'data' ? [e.bytes] : [])));

/** Data events contiguous from 0 with no reset, equal to `expected`. */
export function expectExactlyOnce(events: FollowEvent[], expected: Buffer): void {
  expect(events.filter((e) => e.type === 'reset')).toEqual([]);
  let at = 0;
  for (const e of events) {
    if (e.type !== 'data') continue;
    expect(e.offset).toBe(at);
    at += e.bytes.length;
  }
  expect(bytesOf(events).equals(expected)).toBe(true);
}
