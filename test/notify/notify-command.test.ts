// `awrl-tui notify test`: one line per channel, redacted; exit 1 if any failed, 2 when there is
// none or a URL is not one (said without its secret parts). Against a real receiver on 127.0.0.1.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { hostname } from 'node:os';
import { startCli } from '../runs/cli-process.js';
import { deadPort, startReceiver, type HttpReceiver } from '../harness/http-receiver.js';

const run = async (args: string[], env: Record<string, string> = {}) => {
  const p = startCli(['notify', ...args], env);
  const code = await p.done;
  return { code, stdout: p.stdout, stderr: p.stderr };
};

describe('awrl-tui notify test', { timeout: 60_000 }, () => {
  let rx: HttpReceiver;
  beforeAll(async () => {
    rx = await startReceiver();
    rx.route('/gone', { status: 404, body: 'topic not found' });
  });
  afterAll(async () => {
    await rx.stop();
  });

  it('every channel answers ok: one line each, exit 0; the receiver got a test event', async () => {
    const r = await run(['test', '--notify', `json://127.0.0.1:${rx.port}/hook-Sec`], {
      AWRL_NOTIFY: `ntfy://127.0.0.1:${rx.port}/topic-Sec`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`ok       json://127.0.0.1:${rx.port}/***\nok       ntfy://127.0.0.1:${rx.port}/***\n`);
    const hook = rx.received.find((x) => x.path === '/hook-Sec')!;
    expect(JSON.parse(hook.body)).toMatchObject({ type: 'info', awrl: { event: 'test' } });
    const topic = rx.received.find((x) => x.path === '/topic-Sec')!;
    expect(topic.headers.tags).toBe('information_source,awrl,test');
    // The host is named once: the event's target is this host when no --target is given.
    const said = `${String(topic.headers.title)}\n${topic.body}`;
    expect(said.split(hostname()).length - 1, said).toBe(1);
  });

  it('a refused and a dead channel: said with why, exit 1', async () => {
    const port = await deadPort();
    const r = await run([
      'test',
      '--notify',
      `ntfy://127.0.0.1:${rx.port}/gone-Sec`,
      '--notify',
      `json://127.0.0.1:${port}/dead-Sec`,
      '--notify',
      `json://127.0.0.1:${rx.port}/fine`,
    ]);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`failed   ntfy://127.0.0.1:${rx.port}/***: HTTP 404 (topic not found)`);
    expect(lines[1]).toMatch(
      new RegExp(`^failed   json://127\\.0\\.0\\.1:${port}/\\*\\*\\*: connect ECONNREFUSED.* after 3 tries$`),
    );
    expect(lines[2]).toBe(`ok       json://127.0.0.1:${rx.port}/***`);
    expect(r.stdout + r.stderr).not.toContain('Sec');
  });

  it('no channel, or a URL that is not one: bad input (exit 2), the URL never repeated', async () => {
    const none = await run(['test']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no notification channel: give --notify URL/);
    const bad = await run(['test', '--notify', 'slack://T1/only-two-Sec']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('notification channel slack://***: want slack://TokenA/TokenB/TokenC');
    expect(bad.stderr).not.toContain('Sec');
  });
});
