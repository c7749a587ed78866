// The pure pieces of src/remote: quoting, target parsing, the ssh_config fallback reader,
// known_hosts matching, and the follower's frame parser under arbitrary chunking.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { shellQuote, commandLine } from '../../src/remote/quote.js';
import { splitTarget, matchPatternList, parseConfigFallback } from '../../src/remote/ssh-config.js';
import { checkHostKey, addHostKey, fingerprint, keyType } from '../../src/remote/known-hosts.js';
import { FrameParser, type WireFrame } from '../../src/remote/follow-frames.js';

describe('shellQuote', () => {
  it('round-trips any string without NUL through /bin/sh', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary' }).filter((s) => !s.includes('\0')),
          { maxLength: 4 },
        ),
        (args) => {
          const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${args.map(shellQuote).join(' ')}`]);
          const got = args.length === 0 ? [] : out.toString('utf8').split('\0').slice(0, -1);
          expect(got).toEqual(args.length === 0 ? [] : args);
        },
      ),
      { numRuns: 25 },
    );
  });
  it('rejects NUL and quotes what the shell would interpret', () => {
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('x=y')).toBe(`'x=y'`); // an assignment word would not be a command
    expect(shellQuote('~')).toBe(`'~'`);
    expect(shellQuote('')).toBe(`''`);
    expect(shellQuote('plain/path-1.txt')).toBe('plain/path-1.txt');
    expect(commandLine(['ls', '-l'], '/tmp/a b')).toBe(`cd '/tmp/a b' && ls -l`);
  });
});

describe('ssh targets and config', () => {
  it('splits user@host:port, [v6]:port and aliases', () => {
    expect(splitTarget('alice@head.example:2222')).toEqual({ user: 'alice', host: 'head.example', port: 2222 });
    expect(splitTarget('bob@[::1]:22')).toEqual({ user: 'bob', host: '::1', port: 22 });
    expect(splitTarget('cluster')).toEqual({ user: undefined, host: 'cluster', port: undefined });
    expect(() => splitTarget('-oProxyCommand=x')).toThrow(/not an ssh target/);
  });
  it('matches OpenSSH pattern lists with negation', () => {
    expect(matchPatternList('gpu12', ['gpu*'])).toBe(true);
    expect(matchPatternList('gpu12', ['gpu?'])).toBe(false);
    expect(matchPatternList('gpu12', ['gpu*', '!gpu12'])).toBe(false);
    expect(matchPatternList('GPU1', ['gpu1'])).toBe(true);
  });
  it('reads ~/.ssh/config without OpenSSH: Host blocks, Include, first value wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-cfg-'));
    try {
      mkdirSync(join(dir, 'conf.d'));
      writeFileSync(join(dir, 'conf.d', 'a.conf'), 'Host head\n  HostName 10.0.0.5\n  Port 2200\n');
      writeFileSync(
        join(dir, 'config'),
        `Include ${join(dir, 'conf.d', '*.conf')}\nHost head\n  HostName ignored\n  User alice\n  IdentityFile ~/.ssh/k1\n  ProxyJump bastion\nHost *\n  IdentityFile ~/.ssh/k2\n  ServerAliveInterval 15\n`,
      );
      const kv = parseConfigFallback('head', join(dir, 'config'));
      expect(kv.get('hostname')).toEqual(['10.0.0.5']);
      expect(kv.get('port')).toEqual(['2200']);
      expect(kv.get('user')).toEqual(['alice']);
      expect(kv.get('identityfile')).toEqual(['~/.ssh/k1', '~/.ssh/k2']);
      expect(kv.get('proxyjump')).toEqual(['bastion']);
      expect(kv.get('serveraliveinterval')).toEqual(['15']);
      expect(parseConfigFallback('other', join(dir, 'config')).get('hostname')).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('known_hosts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-kh-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'k1')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'k2')]);
  const pub = (n: string): string =>
    execFileSync('cat', [join(dir, `${n}.pub`)], { encoding: 'utf8' })
      .split(' ')
      .slice(0, 2)
      .join(' ');
  const blob = (n: string): Buffer => Buffer.from(pub(n).split(' ')[1], 'base64');

  it('fingerprints like ssh-keygen -l and reads the key type', () => {
    const fp = execFileSync('ssh-keygen', ['-l', '-f', join(dir, 'k1.pub')], { encoding: 'utf8' }).split(' ')[1];
    expect(fingerprint(blob('k1'))).toBe(fp);
    expect(keyType(blob('k1'))).toBe('ssh-ed25519');
  });
  it('classifies ok / unknown / mismatch / revoked across files, ports and patterns', () => {
    const f = join(dir, 'kh');
    writeFileSync(f, `head,10.0.0.5 ${pub('k1')}\n[head]:2222 ${pub('k2')}\n@revoked bad* ${pub('k2')}\n`);
    expect(checkHostKey([f], 'head', 22, blob('k1'))).toEqual({ status: 'ok' });
    expect(checkHostKey([f], 'HEAD', 22, blob('k1'))).toEqual({ status: 'ok' });
    expect(checkHostKey([f], 'head', 2222, blob('k2'))).toEqual({ status: 'ok' });
    expect(checkHostKey([f], 'head', 22, blob('k2'))).toMatchObject({ status: 'mismatch', lineNo: 1 });
    expect(checkHostKey([f], 'elsewhere', 22, blob('k1'))).toEqual({ status: 'unknown' });
    expect(checkHostKey([join(dir, 'missing'), f], 'badhost', 22, blob('k2'))).toMatchObject({
      status: 'revoked',
      lineNo: 3,
    });
  });
  it('writes hashed lines that it and ssh-keygen -F find', () => {
    const f = join(dir, 'kh_new');
    const line = addHostKey(f, 'node7', 2200, blob('k1'));
    expect(line).toMatch(/^\|1\|/);
    expect(checkHostKey([f], 'node7', 2200, blob('k1'))).toEqual({ status: 'ok' });
    expect(checkHostKey([f], 'node7', 22, blob('k1'))).toEqual({ status: 'unknown' });
    expect(execFileSync('ssh-keygen', ['-F', '[node7]:2200', '-f', f], { encoding: 'utf8' })).toContain(
      pub('k1').split(' ')[1],
    );
  });
});

describe('FrameParser', () => {
  it('parses the same frames however the stream is chunked', () => {
    const bytes = Buffer.concat([
      Buffer.from('S 12 0 d41d8cd98f00b204e9800998ecf8427e\nD 0 5\n'),
      Buffer.from('ab\ncD'),
      Buffer.from('R truncated\nD 0 3\nxyzS 12 3 abc\n'),
    ]);
    const collect = (chunks: Buffer[]): string => {
      const out: string[] = [];
      let pending: { offset: number; bytes: Buffer[] } | null = null;
      const flush = (): void => {
        if (pending) out.push(`D${pending.offset}:${Buffer.concat(pending.bytes).toString()}`);
        pending = null;
      };
      const p = new FrameParser((f: WireFrame) => {
        if (f.kind === 'data') {
          if (pending && pending.offset + Buffer.concat(pending.bytes).length === f.offset) pending.bytes.push(f.bytes);
          else {
            flush();
            pending = { offset: f.offset, bytes: [f.bytes] };
          }
          return;
        }
        flush();
        out.push(f.kind === 'reset' ? `R${f.reason}` : f.kind === 'state' ? `S${f.inode}/${f.prefixLen}` : f.kind);
      });
      for (const c of chunks) p.push(c);
      flush();
      return out.join(' ');
    };
    const whole = collect([bytes]);
    expect(whole).toBe('S12/0 D0:ab\ncD Rtruncated D0:xyz S12/3');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 10 }), (cuts) => {
        const sorted = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let prev = 0;
        for (const c of sorted) {
          chunks.push(bytes.subarray(prev, c));
          prev = c;
        }
        chunks.push(bytes.subarray(prev));
        expect(collect(chunks)).toBe(whole);
      }),
    );
  });
  it("reads the follower's word on how changes reach it (pushed or polled, resident reader or forks)", () => {
    const got: WireFrame[] = [];
    const p = new FrameParser((f) => got.push(f));
    p.push(Buffer.from('M push resident\nM poll forks\n'));
    expect(got).toEqual([
      { kind: 'wake', pushed: true, resident: true },
      { kind: 'wake', pushed: false, resident: false },
    ]);
  });
  it('rejects garbage instead of delivering it as data', () => {
    const p = new FrameParser(() => undefined);
    expect(() => p.push(Buffer.from('tail: file truncated\n'))).toThrow(/protocol error/);
  });
});
