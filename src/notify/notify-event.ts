// What is sent about a run, and its shape on each channel. PURE.
// The JSON body is Apprise's (`version`, `title`, `message`, `type`: info|success|warning|failure)
// plus an `awrl` object a script can act on without parsing the text.
import type { Channel } from './channel-url.js';

export type NotifyEventKind = 'alert' | 'alert-cleared' | 'run-end' | 'blind' | 'sight' | 'test';

export interface NotifyEvent {
  event: NotifyEventKind;
  runId: string;
  target: string;
  /** When it happened (our clock, ISO 8601 UTC). */
  time: string;
  title: string;
  /** The text under the title (an alert's detail; a failed run's last lines). */
  message: string;
  alertId?: string;
  severity?: 'error' | 'warning' | 'info';
  advice?: string;
  /** The trainer's step the alert was seen at. */
  step?: number;
  /** The alert's own time as the log printed it. */
  alertTime?: string;
  /** How many times it fired (identical errors, an alert that came back soon after it cleared). */
  count?: number;
  /** `alert-cleared`: it stopped standing because the run ended, not because the trainer got past it. */
  endedWithRun?: boolean;
  /** `run-end`: the run's state (finished, failed, stopped, timeout). */
  state?: string;
  /** `run-end` of a failed run: its log's last lines. */
  lastLines?: string[];
  /** The run's wandb page, once known (the log's banner). */
  wandbUrl?: string;
}

export type AppriseType = 'info' | 'success' | 'warning' | 'failure';

export function appriseType(e: NotifyEvent): AppriseType {
  switch (e.event) {
    case 'alert':
      return e.severity === 'error' ? 'failure' : e.severity === 'warning' ? 'warning' : 'info';
    case 'alert-cleared':
      return e.endedWithRun ? 'warning' : 'success';
    case 'run-end':
      return e.state === 'finished' ? 'success' : e.state === 'stopped' ? 'warning' : 'failure';
    case 'blind':
      return 'warning';
    case 'sight':
      return 'success';
    case 'test':
      return 'info';
  }
}

const MESSAGE_MAX = 1500;

/** The title and text a person reads (the same words on every channel). */
export function eventText(e: NotifyEvent): { title: string; message: string } {
  const title = `awrl ${e.runId}: ${e.title}`;
  // A traceback's end says what it is; its start is in the log.
  const lines = [e.message.length > MESSAGE_MAX ? `…${e.message.slice(-MESSAGE_MAX)}` : e.message];
  if (e.advice) lines.push(`→ ${e.advice}`);
  if (e.step !== undefined) lines.push(`step ${e.step}${e.alertTime ? ` at ${e.alertTime}` : ''}`);
  if (e.count !== undefined && e.count > 1) lines.push(`fired ${e.count} times`);
  if (e.lastLines?.length) lines.push('last lines of its log:', ...e.lastLines);
  lines.push(`on ${e.target}`);
  if (e.wandbUrl) lines.push(`wandb ${e.wandbUrl}`);
  return { title, message: lines.filter((l) => l !== '').join('\n') };
}

/** The `awrl` object: the event's facts, only those known. */
export function awrlObject(e: NotifyEvent): Record<string, unknown> {
  const o: Record<string, unknown> = { event: e.event, runId: e.runId, target: e.target, time: e.time };
  if (e.alertId !== undefined) o.alertId = e.alertId;
  if (e.severity !== undefined) o.severity = e.severity;
  o.title = e.title;
  if (e.advice) o.advice = e.advice;
  if (e.step !== undefined) o.step = e.step;
  if (e.alertTime !== undefined) o.alertTime = e.alertTime;
  if (e.count !== undefined) o.count = e.count;
  if (e.endedWithRun) o.endedWithRun = true;
  if (e.state !== undefined) o.state = e.state;
  if (e.lastLines?.length) o.lastLines = e.lastLines;
  if (e.wandbUrl) o.wandbUrl = e.wandbUrl;
  return o;
}

/** Apprise's JSON body plus `awrl` (json://, and a command's stdin). */
export function appriseJson(e: NotifyEvent): string {
  const { title, message } = eventText(e);
  return JSON.stringify({ version: '1.0', title, message, type: appriseType(e), awrl: awrlObject(e) });
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

const NTFY_PRIORITY: Record<AppriseType, string> = { failure: '5', warning: '4', success: '3', info: '3' };
const NTFY_TAGS: Record<AppriseType, string> = {
  failure: 'rotating_light',
  warning: 'warning',
  success: 'white_check_mark',
  info: 'information_source',
};

/** A header value as HTTP carries it: one line, Latin-1; other text as RFC 2047 UTF-8 (ntfy reads it). */
export function headerValue(s: string): string {
  const one = s.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(one)) return one;
  return `=?UTF-8?B?${Buffer.from(one, 'utf8').toString('base64')}?=`;
}

/** The request a channel sends for an event (exec is a program's stdin: appriseJson). */
export function requestFor(c: Exclude<Channel, { kind: 'exec' }>, e: NotifyEvent): HttpRequest {
  const { title, message } = eventText(e);
  const type = appriseType(e);
  const auth: Record<string, string> = 'auth' in c && c.auth ? { Authorization: c.auth } : {};
  switch (c.kind) {
    case 'ntfy':
      return {
        url: c.url,
        headers: {
          'Content-Type': 'text/plain; charset=utf-8',
          Title: headerValue(title),
          Priority: NTFY_PRIORITY[type],
          Tags: `${NTFY_TAGS[type]},awrl,${e.event}`,
          ...auth,
        },
        body: message,
      };
    case 'json':
      return { url: c.url, headers: { 'Content-Type': 'application/json', ...auth }, body: appriseJson(e) };
    case 'slack':
      return {
        url: c.url,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: `*${title}*\n${message}`, username: 'awrl-tui' }),
      };
    case 'discord':
      // Discord's content is at most 2000 characters.
      return {
        url: c.url,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'awrl-tui', content: `**${title}**\n${message}`.slice(0, 2000) }),
      };
  }
}
