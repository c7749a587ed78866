// A follow from a file's first byte until `length` bytes came, then closed: the handle (its
// compression counts) and every event, for the tests that check a catch-up byte for byte.
import type { FollowEvent, FollowHandle, Transport } from '../../src/remote/index.js';
import { waitFor } from './wait.js';

export async function followWhole(
  t: Transport,
  path: string,
  length: number,
): Promise<{ h: FollowHandle; events: FollowEvent[] }> {
  const events: FollowEvent[] = [];
  const got = () => events.reduce((a, e) => a + (e.type === 'data' ? e.bytes.length : 0), 0);
  const h = t.follow(path, 0, (e) => events.push(e));
  try {
    await waitFor(() => got() === length, { timeoutMs: 60_000, what: `all ${length} bytes of ${path}` });
  } finally {
    h.close();
  }
  return { h, events };
}
