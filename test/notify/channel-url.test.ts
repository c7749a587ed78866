// Channel URLs in Apprise's conventions, and their redaction: a URL's secret parts never printed.
import { describe, it, expect } from 'vitest';
import { parseChannel, parseChannels, redactUrl, basesFromEnv } from '../../src/notify/channel-url.js';
import { notifyUrls } from '../../src/notify/sources.js';

describe('notification channel URLs', () => {
  it('ntfy:// and ntfys:// post to the topic over http and https; ntfy://topic is ntfy.sh', () => {
    expect(parseChannel('ntfy://127.0.0.1:8080/secret-topic')).toMatchObject({
      kind: 'ntfy',
      url: 'http://127.0.0.1:8080/secret-topic',
      redacted: 'ntfy://127.0.0.1:8080/***',
    });
    expect(parseChannel('ntfys://ntfy.example.org/t')).toMatchObject({ url: 'https://ntfy.example.org/t' });
    expect(parseChannel('ntfy://mytopic')).toMatchObject({ url: 'https://ntfy.sh/mytopic', redacted: 'ntfy://***' });
    const withAuth = parseChannel('ntfy://me:pw@host/t');
    expect(withAuth).toMatchObject({ auth: `Basic ${Buffer.from('me:pw').toString('base64')}` });
    expect(typeof withAuth !== 'string' && withAuth.redacted).toBe('ntfy://host/***');
  });

  it('json:// and jsons:// keep host, port and path; slack:// and discord:// go to their (overridable) bases', () => {
    expect(parseChannel('json://127.0.0.1:9/hook/abc')).toMatchObject({ url: 'http://127.0.0.1:9/hook/abc' });
    expect(parseChannel('jsons://h')).toMatchObject({ url: 'https://h/', redacted: 'jsons://h/***' });
    expect(parseChannel('slack://T000/B000/XXXX')).toMatchObject({
      url: 'https://hooks.slack.com/services/T000/B000/XXXX',
      redacted: 'slack://***',
    });
    const bases = basesFromEnv({
      AWRL_NOTIFY_DISCORD_BASE: 'http://127.0.0.1:5/d/',
      AWRL_NOTIFY_SLACK_BASE: 'http://x',
    });
    expect(parseChannel('discord://1234/tok_en', bases)).toMatchObject({ url: 'http://127.0.0.1:5/d/1234/tok_en' });
    expect(parseChannel('slack://a/b/c', bases)).toMatchObject({ url: 'http://x/a/b/c' });
  });

  it('exec: takes an absolute program path', () => {
    expect(parseChannel('exec:/usr/local/bin/page-me')).toMatchObject({
      kind: 'exec',
      program: '/usr/local/bin/page-me',
    });
    expect(parseChannel('exec:page-me')).toMatch(/absolute path/);
  });

  it('a URL that is not a channel is said without its secret parts', () => {
    const bad = [
      'slack://only/two-secret',
      'discord://notanumber/secretTok',
      'gotify://host/secretTok',
      'ntfy://host/',
    ];
    for (const u of bad) {
      const e = parseChannel(u);
      expect(typeof e).toBe('string');
      expect(e).not.toMatch(/secret|two/);
    }
    expect(parseChannel('gotify://host/secretTok')).toMatch(/unknown scheme 'gotify'/);
    expect(redactUrl('https://user:pw@host/path?token=1')).toBe('https://host/***');
    expect(redactUrl('not a url secret')).toBe('***');
  });

  it('each URL once, from the flags, the profile and AWRL_NOTIFY (space-separated)', () => {
    const urls = notifyUrls({
      flags: ['ntfy://h/a'],
      profile: ['json://h/b', 'ntfy://h/a'],
      env: { AWRL_NOTIFY: ' ntfy://h/c \n json://h/b ' },
    });
    expect(urls).toEqual(['ntfy://h/a', 'json://h/b', 'ntfy://h/c']);
    const { channels, errors } = parseChannels([...urls, 'bogus']);
    expect(channels).toHaveLength(3);
    expect(errors).toEqual([
      '***: not a notification URL (want ntfy://, ntfys://, json://, jsons://, slack://, discord:// or exec:/path)',
    ]);
  });
});

describe('notify: in targets.yaml and --notify on the cockpit', () => {
  it('a profile takes one URL string (space-separated) or a list; the cockpit parses --notify repeatable', async () => {
    const { loadTargets } = await import('../../src/runs/targets.js');
    const { parseCockpitArgs } = await import('../../src/ui/cockpit-args.js');
    const t = loadTargets(
      [
        'targets:',
        '  a:',
        '    host: h',
        '    workdir: /w',
        '    notify: ntfy://h/one json://h/two',
        '  b:',
        '    host: h',
        '    workdir: /w',
        '    notify: [ntfy://h/three]',
      ].join('\n'),
      'targets.yaml',
    );
    expect(t.a.notify).toEqual(['ntfy://h/one', 'json://h/two']);
    expect(t.b.notify).toEqual(['ntfy://h/three']);
    expect(() => loadTargets('targets:\n  a:\n    host: h\n    workdir: /w\n    notify: 3\n', 'targets.yaml')).toThrow(
      /targets\.yaml:5: targets\.a\.notify/,
    );
    const c = parseCockpitArgs(['RUN', '--notify', 'ntfy://h/x', '--notify=json://h/y', '--no-terminal-notify']);
    expect(c.notify.lists['--notify']).toEqual(['ntfy://h/x', 'json://h/y']);
    expect(c.notify.switches.has('--no-terminal-notify')).toBe(true);
    expect(c.positional).toEqual(['RUN']);
  });
});
