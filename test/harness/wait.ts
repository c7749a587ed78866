// Waiting on a condition instead of sleeping: tests poll for the state they need, with a deadline,
// so they are as fast as the machine allows and fail with a message that says what never happened.
import { readFileSync } from 'node:fs';

export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between checks (default 50 ms). */
  intervalMs?: number;
  /** Named in the timeout error: "timed out after 10000 ms waiting for <what>". */
  what?: string;
}

/** Calls `cond` until it returns a truthy value (which is returned) or throws a timeout error.
 *  Errors thrown by `cond` count as "not yet"; the last one is quoted if the wait times out. */
export async function waitFor<T>(cond: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const intervalMs = opts.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what ?? 'condition'}${why}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** True while a process with this PID exists and is not a zombie (Linux /proc). */
export function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3 (after the parenthesised command name, which may contain spaces) is the state.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
