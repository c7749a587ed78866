// What `follow` says about the run's sentinel (src/sentinel) while it follows with channels: who
// sends the run's notifications, and what the sentinel could not send; with or without channels,
// the run dir's disk as the sentinel finds it (full: its `disk-full` alert, which it sends).
import { sentinelText, type SentinelFailure, type SentinelView } from '../runs/sentinel-status.js';
import { diskChangeText, type DiskState } from '../runs/sentinel-disk.js';

export interface SentinelLine {
  /** A JSON line for stdout (--json only), or a human line for stderr/stdout. */
  json: boolean;
  text: string;
}

export function sentinelViewLines(v: SentinelView, prev: SentinelView | null): SentinelLine[] {
  const sends = v.state === 'running';
  if (!prev && !sends) return []; // none or stopped from the start: this watch sends, as ever
  const who = sends ? 'it sends the run’s notifications' : 'notifications are sent from here';
  return [
    { json: false, text: `sentinel ${sentinelText(v).replace(/^sentinel /, '')}: ${who}` },
    {
      json: true,
      text: JSON.stringify({
        type: 'sentinel',
        state: v.state,
        pid: v.pid,
        heartbeatAt: v.heartbeatAt,
        ...(v.why ? { why: v.why } : {}),
      }),
    },
  ];
}

export function sentinelFailedLines(f: SentinelFailure, json: boolean): SentinelLine[] {
  const lines = [
    { json: false, text: `notify   ${f.event} not sent by the run's sentinel to ${f.channel}: ${f.error}` },
  ];
  if (json)
    lines.push({
      json: true,
      text: JSON.stringify({
        type: 'notify-failed',
        channel: f.channel,
        event: f.event,
        reason: f.error,
        by: 'sentinel',
      }),
    });
  return lines;
}

/** The sentinel's disk state changed: `d` null once its writes succeed again. */
export function sentinelDiskLines(d: DiskState | null, prev: DiskState | null): SentinelLine[] {
  const text = diskChangeText(d, prev);
  const json = d ? { type: 'sentinel-disk', ...d } : { type: 'sentinel-disk', state: 'ok' };
  return [
    { json: false, text },
    { json: true, text: JSON.stringify(json) },
  ];
}
