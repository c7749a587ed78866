// A quiet log is watched by the remote follower without forking (bash's own `-ef`/`-nt` tests
// against a stamp carrying the mtime it last saw): whatever happens to the log while it is quiet
// (bytes appended, a truncate-then-regrow to the same size, a rotation, a delete and re-create)
// must still be seen, and every byte arrive once. Each change is made only once the follower has
// gone quiet (its stamp holds the log's mtime), over a real sshd. Where the target has inotifywait a
// change to the quiet log is pushed (it ends the follower's nap at once); a target without it (the
// session PATH hides it) catches every change all the same, by the quiet poll.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openTransport, type Transport, type FollowEvent } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { followers } from '../harness/proxied-ssh.js';
import { startControlMaster, type ControlMaster } from '../harness/control-master.js';
import { sessionPathConfig } from '../harness/session-path.js';
import { descendants } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';
import { useFollowTransport } from '../harness/follow-transport.js';

/** The follower's stamp (`seen` in its temp dir, found from the fifo it holds on fd 5), if any. */
function stamps(sshd: SshdHandle): string[] {
  return followers(sshd).flatMap((pid) => {
    try {
      const stamp = join(dirname(readlinkSync(`/proc/${pid}/fd/5`)), 'seen');
      return existsSync(stamp) ? [stamp] : [];
    } catch {
      return [];
    }
  });
}

/** The follower went quiet on the log as it is now: its stamp carries the log's mtime. */
async function quietOn(sshd: SshdHandle, log: string): Promise<void> {
  await waitFor(
    () => {
      const m = statSync(log, { bigint: true }).mtimeNs;
      return stamps(sshd).some((s) => statSync(s, { bigint: true }).mtimeNs === m);
    },
    { timeoutMs: 20_000, what: 'the follower to go quiet on the log' },
  );
}

const text = (events: FollowEvent[]): string =>
  Buffer.concat(events.flatMap((e) => (e.type === 'data' ? [e.bytes] : []))).toString();

/** The inotifywait processes the followers under this sshd started. */
const watchers = (sshd: SshdHandle): number[] =>
  descendants(sshd.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`).includes(Buffer.from('inotifywait\0'));
    } catch {
      return false;
    }
  });

// ssh2, and the user's own OpenSSH riding a ControlMaster: the same follower script, two clients;
// and a target without inotifywait (ssh2 only: the script is the same for both).
describe.each([
  ['ssh', 'inotifywait'],
  ['openssh', 'inotifywait'],
  ['ssh', 'no inotifywait'],
] as const)('the remote follower on a quiet log (%s, %s)', (kind, push) => {
  let dir: string;
  let sshd: SshdHandle;
  let master: ControlMaster | undefined;
  let t: Transport;
  const pushed = push === 'inotifywait';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-quiet-'));
    sshd = await startSshd(pushed ? {} : { extraConfig: sessionPathConfig(dir, ['inotifywait']) });
    if (kind === 'openssh') master = await startControlMaster(sshd);
    const sshConfigFile = master?.sshConfigFile ?? sshd.sshConfigFile;
    t = await openTransport(sshd.alias, { sshConfigFile, followPollMs: 30 });
    expect(t.constructor.name).toBe(kind === 'openssh' ? 'OpensshTransport' : 'SshTransport');
  });
  afterAll(async () => {
    await t?.close();
    await master?.stop();
    await sshd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees an append, a same-size rewrite, a rotation and a re-creation made while it was quiet', async () => {
    const p = join(dir, 'quiet.log');
    writeFileSync(p, 'first line\n');
    const events: FollowEvent[] = [];
    const h = t.follow(p, 0, (e) => events.push(e));
    try {
      await waitFor(() => text(events) === 'first line\n', { what: 'the first line' });
      await quietOn(sshd, p);
      expect(watchers(sshd).length > 0).toBe(pushed);

      appendFileSync(p, 'after a quiet spell\n');
      await waitFor(() => text(events).endsWith('after a quiet spell\n'), { what: 'the appended line' });
      await quietOn(sshd, p);

      // Truncated and rewritten to exactly the size already read: only the bytes tell.
      const size = statSync(p).size;
      writeFileSync(p, 'X'.repeat(size - 1) + '\n');
      await waitFor(() => events.some((e) => e.type === 'reset'), { what: 'the truncation' });
      expect(events.find((e) => e.type === 'reset')).toEqual({ type: 'reset', reason: 'truncated' });
      await waitFor(() => text(afterLastReset(events)) === 'X'.repeat(size - 1) + '\n', { what: 'the rewrite' });
      await quietOn(sshd, p);

      // The new log is older than the stamp (moved into place from elsewhere): only its inode tells.
      writeFileSync(`${p}.new`, 'rotated\n');
      const past = Date.now() / 1000 - 3600;
      utimesSync(`${p}.new`, past, past);
      renameSync(p, `${p}.1`);
      renameSync(`${p}.new`, p);
      await waitFor(() => text(afterLastReset(events)) === 'rotated\n', { what: 'the rotated log' });
      expect(events.filter((e) => e.type === 'reset').at(-1)).toEqual({ type: 'reset', reason: 'replaced' });
      await quietOn(sshd, p);

      unlinkSync(p);
      await waitFor(() => stamps(sshd).length === 0 || !existsSync(p), { what: 'the log gone' });
      // Let go with the file: no inotifywait keeps the deleted log (and its space) open.
      await waitFor(() => watchers(sshd).length === 0, { what: 'no watcher on the deleted log' });
      writeFileSync(p, 'again\n');
      await waitFor(() => text(afterLastReset(events)) === 'again\n', { what: 'the re-created log' });
      expect(events.filter((e) => e.type === 'reset').at(-1)?.type).toBe('reset');
      // Between resets, offsets are contiguous: nothing twice, nothing skipped.
      let at = 0;
      for (const e of events) {
        if (e.type === 'reset') at = 0;
        else if (e.type === 'data') {
          expect(e.offset).toBe(at);
          at += e.bytes.length;
        }
      }
    } finally {
      h.close();
    }
  });
});

function afterLastReset(events: FollowEvent[]): FollowEvent[] {
  return events.slice(events.map((e) => e.type).lastIndexOf('reset') + 1);
}

/** Every inotifywait under this sshd has its watch in place (its inotify fd lists one). */
const watching = (sshd: SshdHandle): boolean =>
  watchers(sshd).length > 0 &&
  watchers(sshd).every((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fdinfo`).some((fd) =>
        readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').includes('inotify wd:'),
      );
    } catch {
      return false;
    }
  });

describe('a write to a quiet log, inotifywait on the target', () => {
  // Every poll far longer than the wait below: only a pushed change can arrive within it.
  const f = useFollowTransport('ssh', 'awrl-push-', 60_000);

  it('is pushed: it arrives long before the next poll', async () => {
    const p = join(f.dir, 'push.log');
    writeFileSync(p, 'before\n');
    // Quiet from the follower's first look on.
    const past = Date.now() / 1000 - 3600;
    utimesSync(p, past, past);
    const events: FollowEvent[] = [];
    const h = f.t.follow(p, 0, (e) => events.push(e));
    try {
      await waitFor(() => text(events) === 'before\n', { what: 'the first line' });
      await quietOn(f.sshd!, p);
      await waitFor(() => watching(f.sshd!), { what: "inotifywait's watch on the log" });
      appendFileSync(p, 'after\n');
      await waitFor(() => text(events) === 'before\nafter\n', { timeoutMs: 5_000, what: 'the pushed line' });
    } finally {
      h.close();
    }
  });
});
