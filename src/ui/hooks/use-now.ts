// A clock for "age of the last step" and countdowns. It checks every `intervalMs` but only hands
// React a new time when `keyOf(now)` (the clock-driven text actually on screen) changes: every
// React commit makes Ink rebuild the whole frame, so an idle dashboard must not commit every second.
import { useEffect, useRef, useState } from 'react';

export function useNow(active: boolean, keyOf: (now: number) => string, intervalMs = 1000, clock: () => number = Date.now): number {
  const [now, setNow] = useState(clock);
  const keyRef = useRef(keyOf);
  keyRef.current = keyOf;
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (!active) return;
    const tick = () => {
      const t = clock();
      const k = keyRef.current(t);
      if (k !== shown.current) {
        shown.current = k;
        setNow(t);
      }
    };
    tick();
    const timer = setInterval(tick, intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs, clock]);
  return now;
}
