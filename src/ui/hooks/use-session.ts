// Subscribe to a Session, but hand React at most one new state per frame: bursts of store changes
// (a 200-key step, a backfill of 10,000 steps) collapse into one render. No timer runs while
// nothing changes.
import { useEffect, useState } from 'react';
import type { Session, SessionState } from '../session/types.js';

export function useSessionState(session: Session, frameMs = 100): SessionState {
  const [state, setState] = useState(() => session.getState());
  useEffect(() => {
    let timer: NodeJS.Timeout | null = null;
    const flush = () => {
      timer = null;
      setState(session.getState());
    };
    const unsubscribe = session.subscribe(() => {
      if (!timer) timer = setTimeout(flush, frameMs);
    });
    setState(session.getState());
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [session, frameMs]);
  return state;
}
