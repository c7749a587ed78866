import type { FollowHandle } from './transport.js';

/** The follows a transport has open, so that closing the transport ends them all. Both remote
 *  transports keep one; a follow closed by its owner leaves the set at once. */
export class OpenFollows {
  private readonly open = new Set<FollowHandle>();

  /** Tracks `h`; the handle returned is `h` with a close that also forgets it. */
  track(h: FollowHandle): FollowHandle {
    this.open.add(h);
    const open = this.open;
    return {
      get offset() {
        return h.offset;
      },
      get compression() {
        return h.compression;
      },
      get wake() {
        return h.wake;
      },
      close: () => {
        h.close();
        open.delete(h);
      },
    };
  }

  closeAll(): void {
    for (const h of this.open) h.close();
    this.open.clear();
  }
}
