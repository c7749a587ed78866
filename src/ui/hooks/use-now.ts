// A clock for "age of the last step" and countdowns: ticks only while `active`.
import { useEffect, useState } from 'react';

export function useNow(active: boolean, intervalMs = 1000, clock: () => number = Date.now): number {
  const [now, setNow] = useState(clock);
  useEffect(() => {
    if (!active) return;
    setNow(clock());
    const t = setInterval(() => setNow(clock()), intervalMs);
    return () => clearInterval(t);
  }, [active, intervalMs, clock]);
  return now;
}
