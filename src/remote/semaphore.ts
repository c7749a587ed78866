// At most N channels open on one SSH connection (OpenSSH's MaxSessions is 10; we keep two spare
// for interactive use). Requests beyond N wait in FIFO order instead of failing with `open failed`.
export class Semaphore {
  private inUse = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly max: number) {}

  get active(): number {
    return this.inUse;
  }

  async acquire(): Promise<() => void> {
    if (this.inUse >= this.max) await new Promise<void>((r) => this.waiters.push(r));
    else this.inUse++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else this.inUse--;
    };
  }
}
