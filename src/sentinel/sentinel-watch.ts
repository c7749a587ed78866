// An attached watch's look at the run's sentinel (`follow`, `--launch --follow`): polled every
// heartbeat period. While it runs it is the one sender of the run's notifications (the attached
// watch keeps quiet: NotifierOptions.quiet); silent or stopped, the attached watch sends. Its
// delivery failures and its silence are told to the attached watch, to show as its own, and its
// silence is an alert of the attached watch (sentinel-alert.ts).
import type { Transport } from '../remote/transport.js';
import { listRuns } from '../runs/list.js';
import { SENTINEL_PERIOD_MS, type SentinelFailure, type SentinelView } from '../runs/sentinel-status.js';
import type { Target } from '../runs/targets.js';
import type { NotifyEvent } from '../notify/index.js';
import type { OutsideAlert } from '../watch/outside-alerts.js';
import { sentinelQuiets, sentinelSilentAlert } from './sentinel-alert.js';

export interface SentinelWatchOptions {
  intervalMs?: number;
  /** The sentinel's state changed (the first look included). */
  onView?(v: SentinelView, previous: SentinelView | null): void;
  /** A delivery failure the sentinel recorded since this watch began. */
  onFailure?(f: SentinelFailure): void;
  /** The attached watch's alert for a silent sentinel (given to it as RunWatchOptions.outsideAlerts). */
  alert?: OutsideAlert;
}

export interface SentinelWatch {
  /** The sentinel is the run's sender now (it runs and beats, or it stopped after sending the run's end). */
  readonly sending: boolean;
  readonly view: SentinelView | null;
  /** The attached watch keeps this event from its channels (NotifierOptions.quiet). */
  quiets(e: NotifyEvent): boolean;
  close(): void;
}

export function watchSentinel(
  transport: Transport,
  target: Target,
  runId: string,
  o: SentinelWatchOptions = {},
): SentinelWatch {
  let view: SentinelView | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  const seen = new Set<string>();
  let first = true;
  const look = async () => {
    if (closed) return;
    const r = await listRuns(transport, target, { only: runId, tailBytes: 0 }).catch(() => null);
    const v = r?.[0]?.sentinel;
    if (v && !closed) {
      const prev = view;
      view = v;
      o.alert?.set(sentinelSilentAlert(v, runId, target.name));
      if (!prev || prev.state !== v.state) o.onView?.(v, prev);
      for (const f of v.failures ?? []) {
        const key = `${f.at} ${f.channel} ${f.error}`;
        if (!seen.has(key) && !first) o.onFailure?.(f);
        seen.add(key);
      }
      first = false;
    }
    if (!closed) {
      timer = setTimeout(() => void look(), o.intervalMs ?? SENTINEL_PERIOD_MS);
      timer.unref();
    }
  };
  void look();
  const sending = () => view?.state === 'running' || (view?.state === 'stopped' && view.runEnded === true);
  return {
    get sending() {
      return sending();
    },
    quiets: (e) => sentinelQuiets(sending(), e),
    get view() {
      return view;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
