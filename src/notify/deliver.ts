// Sending one event through one channel: an HTTP(S) POST retried with backoff for what may pass (a
// network error, 429, 5xx; `Retry-After` honoured), or a program run with the event's JSON on stdin.
// A failure's reason never holds the URL (only the channel's redacted name is said by callers).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { spawn } from 'node:child_process';
import type { Channel } from './channel-url.js';
import { appriseJson, requestFor, type HttpRequest, type NotifyEvent } from './notify-event.js';

export interface DeliveryOptions {
  /** Tries after the first (default 4: 5 in all). */
  retries?: number;
  /** The first wait before a retry, doubled each time (default 1 s). */
  backoffMs?: number;
  /** The longest wait a `Retry-After` may ask for before it counts as a failure (default 2 min). */
  maxRetryAfterMs?: number;
  /** One request's (or program's) limit (default 10 s; a program 30 s). */
  timeoutMs?: number;
  /** Aborted: no more tries (the process is ending). */
  signal?: AbortSignal;
}

export type Delivery = { ok: true; tries: number } | { ok: false; tries: number; reason: string };

type Answer = { status: number; retryAfter: string | undefined; body: string } | { error: string };

/** One POST: its status, or the network error (no URL in it). */
function post(req: HttpRequest, timeoutMs: number, signal?: AbortSignal): Promise<Answer> {
  return new Promise((resolve) => {
    const u = new URL(req.url);
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = Buffer.from(req.body, 'utf8');
    const r = send(
      u,
      {
        method: 'POST',
        headers: { ...req.headers, 'Content-Length': String(body.length), 'User-Agent': 'awrl-tui' },
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (text.length < 500) text += c;
        });
        res.on('end', () => {
          const ra = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(ra) ? ra[0] : ra, body: text });
        });
        res.on('error', (e) => resolve({ error: errorText(e) }));
      },
    );
    r.on('timeout', () => r.destroy(new Error(`no answer in ${Math.round(timeoutMs / 1000)} s`)));
    r.on('error', (e) => resolve({ error: errorText(e) }));
    r.end(body);
  });
}

function errorText(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  // Node's messages name the address (host:port), never the path: they are safe to print.
  return code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message;
}

/** `Retry-After` as milliseconds from now (seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(v: string | undefined, now = Date.now()): number | null {
  if (v === undefined || v.trim() === '') return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Sends `e` through `c`, retrying what may pass; the outcome says why it failed. */
export async function deliver(c: Channel, e: NotifyEvent, o: DeliveryOptions = {}): Promise<Delivery> {
  if (c.kind === 'exec') return runProgram(c.program, appriseJson(e), o.timeoutMs ?? 30_000);
  const req = requestFor(c, e);
  const retries = o.retries ?? 4;
  let backoff = o.backoffMs ?? 1000;
  let reason = '';
  for (let tries = 1; ; tries++) {
    const a = await post(req, o.timeoutMs ?? 10_000, o.signal);
    let waitMs = backoff;
    if ('error' in a) reason = a.error;
    else if (a.status >= 200 && a.status < 300) return { ok: true, tries };
    else {
      const said = a.body.trim().split('\n')[0]?.slice(0, 120) ?? '';
      reason = `HTTP ${a.status}${said ? ` (${said})` : ''}`;
      // Other 4xx: the request itself is wrong (a bad token, a deleted hook): trying again cannot help.
      if (a.status !== 429 && a.status < 500) return { ok: false, tries, reason };
      const ra = retryAfterMs(a.retryAfter);
      if (ra !== null) {
        if (ra > (o.maxRetryAfterMs ?? 120_000))
          return { ok: false, tries, reason: `${reason}, Retry-After ${Math.round(ra / 1000)} s is too long` };
        waitMs = ra;
      }
    }
    if (tries > retries || o.signal?.aborted) return { ok: false, tries, reason: `${reason} after ${tries} tries` };
    await wait(waitMs, o.signal);
    backoff *= 2;
  }
}

/** A program given the event's JSON on stdin: exit 0 is delivered. */
function runProgram(program: string, json: string, timeoutMs: number): Promise<Delivery> {
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(program, [], { stdio: ['pipe', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (stderr = (stderr + c).slice(-500)));
    child.stdin.on('error', () => undefined); // a program that does not read its stdin
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, tries: 1, reason: errorText(e) });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = stderr.trim().split('\n').at(-1) ?? '';
      if (code === 0) resolve({ ok: true, tries: 1 });
      else
        resolve({
          ok: false,
          tries: 1,
          reason: `${signal ? `ended by ${signal}` : `exit ${code}`}${last ? ` (${last.slice(0, 120)})` : ''}`,
        });
    });
    child.stdin.end(json);
  });
}
