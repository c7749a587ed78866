// Behavioural tests every transport must pass: the same file, parameterised by transport. The ssh
// variant runs against a real sshd the harness starts on 127.0.0.1 with throwaway keys.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  mkdtempSync,
  writeFileSync,
  appendFileSync,
  existsSync,
  readFileSync,
  rmSync,
  statSync,
  renameSync,
  truncateSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, remoteScript, type Transport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd, descendants, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';
import { startControlMaster, type ControlMaster } from '../harness/control-master.js';

// `openssh`: the user's own ssh client riding a ControlMaster the test started (a ControlPath in the
// ssh config selects it); the same tests, so the two remote transports cannot drift.
const KINDS = (process.env.AWRL_TRANSPORTS ?? 'local,ssh,openssh').split(',');

describe.each(KINDS)('transport %s', (kind) => {
  let sshd: SshdHandle | undefined;
  let master: ControlMaster | undefined;
  let t: Transport;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), `awrl-tr-${kind}-`));
    if (kind === 'ssh') {
      sshd = await startSshd();
      t = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, followPollMs: 30 });
    } else if (kind === 'openssh') {
      sshd = await startSshd();
      master = await startControlMaster(sshd);
      t = await openTransport(sshd.alias, { sshConfigFile: master.sshConfigFile, followPollMs: 30 });
      expect(t.constructor.name).toBe('OpensshTransport');
    } else {
      t = await openTransport('local', { followPollMs: 30 });
    }
  });
  afterAll(async () => {
    await t?.close();
    await master?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ready after open', () => {
    expect(t.state.state).toBe('ready');
  });

  it('exec round trip with exit codes and signals', async () => {
    const ok = await t.exec(['printf', '%s|', 'a', 'b c']);
    expect(ok.code).toBe(0);
    expect(ok.stdout.toString()).toBe('a|b c|');
    const fail = await t.exec(['bash', '-c', 'echo oops >&2; exit 7']);
    expect(fail.code).toBe(7);
    expect(fail.stderr.toString()).toBe('oops\n');
    const killed = await t.exec(['bash', '-c', 'kill -TERM $$']);
    expect(killed.signal === 'SIGTERM' || killed.signal === 'TERM' || killed.code === 143).toBe(true);
    const missing = await t.exec(['awrl-no-such-program-xyz']);
    expect(missing.code).toBe(127);
  });

  it('exec with cwd and stdin', async () => {
    const r = await t.exec(['bash', '-c', 'pwd; cat'], { cwd: dir, stdin: 'hello\n' });
    expect(r.stdout.toString()).toBe(`${dir}\nhello\n`);
  });

  it('8 MB on stderr while reading stdout does not stall', async () => {
    const r = await t.exec(['bash', '-c', 'head -c 8388608 /dev/zero >&2; echo done']);
    expect(r.code).toBe(0);
    expect(r.stderr.length).toBe(8 * 1024 * 1024);
    expect(r.stdout.toString()).toBe('done\n');
  });

  it('argv arrives byte for byte and nothing unasked is executed', async () => {
    const planted = join(dir, 'planted');
    const nasty = [
      "it's",
      '"double"',
      `$(touch ${planted})`,
      `\`touch ${planted}\``,
      `a; touch ${planted}`,
      `b & touch ${planted}`,
      'line1\nline2',
      '${oc.env:HOME}',
      'ünïcødé ✓ 日本',
      '',
      ' spaced ',
      '*',
      '~',
      'x=y',
      '\\',
      "'\\''",
    ];
    const r = await t.exec(['printf', '%s\\0', ...nasty]);
    expect(r.code).toBe(0);
    expect(r.stdout.toString('utf8').split('\0').slice(0, -1)).toEqual(nasty);
    expect(existsSync(planted)).toBe(false);
    // Through a bash script with positional arguments, the launcher's pattern.
    const r2 = await t.exec(remoteScript('printf "%s\\0" "$@"', nasty));
    expect(r2.stdout.toString('utf8').split('\0').slice(0, -1)).toEqual(nasty);
    expect(existsSync(planted)).toBe(false);
  });

  it('a secret on stdin reaches the environment and no command line', async () => {
    const secret = `s3cr3t-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const marker = join(dir, 'secret-ready');
    const script = [
      'while IFS= read -r line; do [ -n "$line" ] && export "$line"; done',
      `touch "$1"`,
      'for i in $(seq 200); do [ -e "$1.go" ] && break; sleep 0.05; done',
      'printf %s "$WANDB_API_KEY"',
    ].join('\n');
    const running = t.exec(remoteScript(script, [marker]), { stdin: `WANDB_API_KEY=${secret}\n` });
    await waitFor(() => existsSync(marker), { what: 'the script to read its secrets' });
    const ps = await t.exec(['ps', '-eo', 'args']);
    expect(ps.stdout.toString()).not.toContain(secret);
    writeFileSync(`${marker}.go`, '');
    const r = await running;
    expect(r.stdout.toString()).toBe(secret);
  });

  it('readFile, stat and writeFileAtomic', async () => {
    const p = join(dir, 'sub', 'deeper', 'file.bin');
    const bytes = Buffer.from([0, 1, 2, 255, 10, 39, 34, 36]);
    await t.writeFileAtomic(p, bytes, 0o600);
    expect(readFileSync(p)).toEqual(bytes);
    expect(statSync(p).mode & 0o777).toBe(0o600);
    await t.writeFileAtomic(p, 'replaced\n');
    expect(readFileSync(p, 'utf8')).toBe('replaced\n');
    expect(await t.readFile(p)).toEqual(Buffer.from('replaced\n'));
    expect((await t.readFile(p, { offset: 2, length: 3 })).toString()).toBe('pla');
    expect((await t.readFile(p, { offset: 5 })).toString()).toBe('ced\n');
    const st = await t.stat(p);
    expect(st).toMatchObject({ inode: statSync(p).ino, size: 9 });
    expect(Math.abs(st!.mtimeMs - statSync(p).mtimeMs)).toBeLessThan(1000);
    expect(await t.stat(join(dir, 'nope'))).toBeNull();
    await expect(t.readFile(join(dir, 'nope'))).rejects.toThrow();
  });

  it('30 concurrent exec calls all succeed', async () => {
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => t.exec(['echo', String(i)])));
    expect(rs.map((r) => r.stdout.toString().trim())).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
    expect(rs.every((r) => r.code === 0)).toBe(true);
  });

  it.skipIf(kind === 'local')('keeps at most 8 channels open; further commands queue and then run', async () => {
    const gate = join(dir, 'gate');
    const script = 'touch "$1.$2"; for i in $(seq 400); do [ -e "$1.go" ] && exit 0; sleep 0.05; done; exit 1';
    const runs = Array.from({ length: 12 }, (_, i) => t.exec(remoteScript(script, [gate, String(i)])));
    const started = (): number =>
      Array.from({ length: 12 }, (_, i) => existsSync(`${gate}.${i}`)).filter(Boolean).length;
    let most = 0;
    await waitFor(() => (most = Math.max(most, started())) === 8, { what: '8 commands to be running' });
    writeFileSync(`${gate}.go`, '');
    const rs = await Promise.all(runs);
    expect(most).toBe(8);
    expect(rs.every((r) => r.code === 0)).toBe(true);
    expect(started()).toBe(12);
  });

  it('follow delivers appended bytes once, with resets on truncation and rotation', async () => {
    const p = join(dir, 'follow.log');
    const events: FollowEvent[] = [];
    writeFileSync(p, 'skip me\n');
    const h = t.follow(p, 8, (e) => events.push(e));
    const got = (): string =>
      Buffer.concat(
        events.filter((e): e is Extract<FollowEvent, { type: 'data' }> => e.type === 'data').map((e) => e.bytes),
      ).toString();
    appendFileSync(p, 'one\n');
    await waitFor(() => got() === 'one\n', { what: 'the first line' });
    appendFileSync(p, 'two\n');
    await waitFor(() => got() === 'one\ntwo\n', { what: 'the second line' });
    expect(h.offset).toBe(16);
    truncateSync(p, 0);
    await waitFor(() => events.some((e) => e.type === 'reset' && e.reason === 'truncated'), {
      what: 'a truncation reset',
    });
    appendFileSync(p, 'three\n');
    await waitFor(() => got().endsWith('three\n'), { what: 'data after truncation' });
    renameSync(p, `${p}.1`);
    writeFileSync(p, 'four\n');
    await waitFor(() => events.some((e) => e.type === 'reset' && e.reason === 'replaced'), {
      what: 'a rotation reset',
    });
    await waitFor(() => got().endsWith('four\n'), { what: 'data after rotation' });
    h.close();
    if (sshd) {
      // Closing the handle ends the remote follower too (stdin EOF), not only after its heartbeat timeout.
      const s = sshd;
      const followers = (): number =>
        descendants(s.pid).filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`).includes(Buffer.from('\0awrl-follow\0'));
          } catch {
            return false;
          }
        }).length;
      await waitFor(() => followers() === 0, { timeoutMs: 5000, what: 'the remote follower to exit after close()' });
    }
    // Offsets are contiguous between resets.
    let expected = 8;
    for (const e of events) {
      if (e.type === 'reset') expected = 0;
      else if (e.type === 'data') {
        expect(e.offset).toBe(expected);
        expected += e.bytes.length;
      }
    }
    expect(got()).toBe('one\ntwo\nthree\nfour\n');
  });

  it('follow reports a file that appears later', async () => {
    const p = join(dir, 'late.log');
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    // Give the follower a chance to see the file missing (condition: it has not delivered anything).
    await new Promise((r) => setImmediate(r));
    writeFileSync(p, 'hello\n');
    await waitFor(() => events.some((e) => e.type === 'data'), { what: 'data from a file that appeared' });
    h.close();
    const data = events.filter((e) => e.type === 'data');
    expect(Buffer.concat(data.map((e) => (e as { bytes: Buffer }).bytes)).toString()).toBe('hello\n');
  });
});
