// Delivery to a real HTTP receiver on 127.0.0.1: the ntfy and JSON shapes, Slack and Discord through
// a base a test points at the receiver, 429 + Retry-After honoured, 5xx retried, another 4xx and a
// dead port said as failures (with the channel's redacted name, never its URL), a program's stdin.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReceiver, deadPort, type HttpReceiver } from '../harness/http-receiver.js';
import { deliver } from '../../src/notify/deliver.js';
import { Outbox, type NotifyFailure } from '../../src/notify/outbox.js';
import { parseChannel, basesFromEnv, type Channel } from '../../src/notify/channel-url.js';
import type { NotifyEvent } from '../../src/notify/notify-event.js';
import { waitFor } from '../harness/wait.js';

const event: NotifyEvent = {
  event: 'alert',
  runId: 'r1',
  target: 'gpu1',
  time: '2026-12-05T10:00:00.000Z',
  title: 'stalled waiting for the rollout batch ✗',
  message: 'no step for 20 min',
  alertId: 'health/stall/rollout_wait',
  severity: 'error',
  advice: 'look at the rollout workers',
  step: 41,
};
const channel = (url: string, env: Record<string, string> = {}): Channel => {
  const c = parseChannel(url, basesFromEnv(env));
  if (typeof c === 'string') throw new Error(c);
  return c;
};
const fast = { backoffMs: 50, timeoutMs: 5000 };

describe('notification delivery', { timeout: 30_000 }, () => {
  let rx: HttpReceiver;
  beforeAll(async () => {
    rx = await startReceiver();
  });
  afterAll(async () => {
    await rx.stop();
  });
  const last = () => rx.received[rx.received.length - 1];

  it('ntfy: the message as the body, title (RFC 2047 when not ASCII), priority and tags as headers', async () => {
    const d = await deliver(channel(`ntfy://127.0.0.1:${rx.port}/awrl-topic`), event, fast);
    expect(d).toEqual({ ok: true, tries: 1 });
    const r = last();
    expect(r).toMatchObject({ method: 'POST', path: '/awrl-topic' });
    expect(r.headers.priority).toBe('5');
    expect(r.headers.tags).toBe('rotating_light,awrl,alert');
    const title = String(r.headers.title);
    expect(title).toMatch(/^=\?UTF-8\?B\?/);
    expect(Buffer.from(title.slice(10, -2), 'base64').toString('utf8')).toBe(`awrl r1: ${event.title}`);
    expect(r.body).toContain('no step for 20 min\n→ look at the rollout workers\nstep 41');
  });

  it("json: Apprise's body plus the awrl object", async () => {
    await deliver(channel(`json://127.0.0.1:${rx.port}/hook`), event, fast);
    const r = last();
    expect(r.path).toBe('/hook');
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({
      version: '1.0',
      title: `awrl r1: ${event.title}`,
      message: expect.stringContaining('no step for 20 min'),
      type: 'failure',
      awrl: {
        event: 'alert',
        runId: 'r1',
        target: 'gpu1',
        time: event.time,
        alertId: event.alertId,
        severity: 'error',
        title: event.title,
        advice: event.advice,
        step: 41,
      },
    });
  });

  it('Slack and Discord payloads through bases pointed at the receiver', async () => {
    const env = { AWRL_NOTIFY_SLACK_BASE: `${rx.base}/slack`, AWRL_NOTIFY_DISCORD_BASE: `${rx.base}/discord` };
    await deliver(channel('slack://TA/TB/TC', env), event, fast);
    expect(last().path).toBe('/slack/TA/TB/TC');
    expect(JSON.parse(last().body).text).toMatch(/^\*awrl r1: stalled/);
    await deliver(channel('discord://123/tok', env), event, fast);
    expect(last().path).toBe('/discord/123/tok');
    expect(JSON.parse(last().body).content).toMatch(/^\*\*awrl r1: stalled/);
  });

  it('429 with Retry-After: the next try waits that long; 5xx is retried with backoff', async () => {
    const before = rx.received.length;
    rx.script({ status: 429, headers: { 'Retry-After': '1' } }, { status: 503 });
    const d = await deliver(channel(`json://127.0.0.1:${rx.port}/rl`), event, fast);
    expect(d).toEqual({ ok: true, tries: 3 });
    const [a, b] = rx.received.slice(before);
    expect(b.at - a.at).toBeGreaterThanOrEqual(950);
  });

  it('another 4xx fails at once; 5xx past the retries and a dead port fail after them', async () => {
    rx.script({ status: 404, body: 'no such topic' });
    expect(await deliver(channel(`ntfy://127.0.0.1:${rx.port}/gone`), event, fast)).toEqual({
      ok: false,
      tries: 1,
      reason: 'HTTP 404 (no such topic)',
    });
    rx.script({ status: 500 }, { status: 500 }, { status: 500 });
    const five = await deliver(channel(`json://127.0.0.1:${rx.port}/x`), event, { ...fast, retries: 2 });
    expect(five).toEqual({ ok: false, tries: 3, reason: 'HTTP 500 after 3 tries' });
    const port = await deadPort();
    const dead = await deliver(channel(`ntfy://127.0.0.1:${port}/t`), event, { ...fast, retries: 1 });
    expect(dead.ok).toBe(false);
    expect(dead).toMatchObject({ tries: 2, reason: expect.stringMatching(/ECONNREFUSED.*after 2 tries/) });
  });

  it('the outbox never waits: send returns at once, a failure names the channel redacted, Slack one a second', async () => {
    const port = await deadPort();
    const failures: NotifyFailure[] = [];
    const env = { AWRL_NOTIFY_SLACK_BASE: `${rx.base}/s` };
    const box = new Outbox([channel(`ntfy://127.0.0.1:${port}/secret-topic`), channel('slack://A/B/C', env)], {
      ...fast,
      retries: 1,
      onFailure: (f) => failures.push(f),
    });
    const before = rx.received.length;
    const t = Date.now();
    box.send(event);
    box.send({ ...event, event: 'alert-cleared' });
    expect(Date.now() - t).toBeLessThan(50);
    expect(await box.drain(10_000)).toBe(true);
    expect(failures.map((f) => [f.channel, f.event])).toEqual([
      [`ntfy://127.0.0.1:${port}/***`, 'alert'],
      [`ntfy://127.0.0.1:${port}/***`, 'alert-cleared'],
    ]);
    expect(JSON.stringify(failures)).not.toContain('secret-topic');
    const slack = rx.received.slice(before).filter((r) => r.path === '/s/A/B/C');
    expect(slack).toHaveLength(2);
    expect(slack[1].at - slack[0].at).toBeGreaterThanOrEqual(950);
  });

  it("exec: the program gets the event's JSON on stdin; a non-zero exit is a failure with its last line", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-exec-'));
    try {
      const got = join(dir, 'got.json');
      const ok = join(dir, 'ok.sh');
      writeFileSync(ok, `#!/bin/sh\ncat > ${got}\n`, { mode: 0o755 });
      expect(await deliver(channel(`exec:${ok}`), event, fast)).toEqual({ ok: true, tries: 1 });
      await waitFor(() => readFileSync(got, 'utf8').length > 0);
      expect(JSON.parse(readFileSync(got, 'utf8')).awrl.alertId).toBe(event.alertId);
      const bad = join(dir, 'bad.sh');
      writeFileSync(bad, '#!/bin/sh\necho "pager down" >&2\nexit 3\n', { mode: 0o755 });
      expect(await deliver(channel(`exec:${bad}`), event, fast)).toEqual({
        ok: false,
        tries: 1,
        reason: 'exit 3 (pager down)',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
