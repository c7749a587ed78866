// The remote follower's resident reader (src/remote/follow-resident.ts) over a real sshd: once the
// follower is at the end of a log it hands the live tail to one long-lived perl process, woken by
// inotifywait's push, so an append starts no process on the target. Rotation, truncation (also a
// truncate-then-regrow behind the same first bytes), a same-size rewrite and re-creation are still
// handed back and seen, every byte once; without inotifywait the reader polls; without perl the
// bash follower works alone; and nothing it started outlives the follow or a dead connection.
import { describe, it, expect } from 'vitest';
import { appendFileSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTransport, type FollowEvent } from '../../src/remote/index.js';
import { descendants, type SshdHandle } from '../harness/sshd.js';
import { useFollowTransport, type FollowTransport, type FollowTransportOptions } from '../harness/follow-transport.js';
import { sessionPathConfig } from '../harness/session-path.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';
import { proxiedConfig } from '../harness/proxied-ssh.js';
import { waitFor } from '../harness/wait.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import type { Target } from '../../src/runs/index.js';

const cmdline = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ');
  } catch {
    return '';
  }
};
/** What the sessions under this sshd run: everything under it but sshd's own processes. */
const targetProcesses = (sshd: SshdHandle): number[] =>
  descendants(sshd.pid).filter((pid) => !/^sshd/.test(cmdline(pid)) && cmdline(pid) !== '');
const running = (sshd: SshdHandle, word: RegExp): number[] =>
  targetProcesses(sshd).filter((pid) => word.test(cmdline(pid)));
const resident = (sshd: SshdHandle): number[] => running(sshd, /^(\/usr\/bin\/)?perl \S+\/resident\.pl /);

const text = (events: FollowEvent[]): string =>
  Buffer.concat(events.flatMap((e) => (e.type === 'data' ? [e.bytes] : []))).toString();
const afterLastReset = (events: FollowEvent[]): FollowEvent[] =>
  events.slice(events.map((e) => e.type).lastIndexOf('reset') + 1);
/** Between resets, offsets are contiguous: nothing twice, nothing skipped. */
function expectContiguous(events: FollowEvent[]): void {
  let at = 0;
  for (const e of events) {
    if (e.type === 'reset') at = 0;
    else if (e.type === 'data') {
      expect(e.offset).toBe(at);
      at += e.bytes.length;
    }
  }
}
/** A log's first line: longer than the 64 bytes the follower checks, the same in every rewrite. */
const HEADER = `run started ${'='.repeat(70)}\n`;

// Commands the bash follower runs per delivery, wrapped to count how often they are started.
const COUNTED = ['stat', 'cmp', 'dd', 'tee', 'head', 'md5sum', 'cat', 'touch', 'tail', 'mv', 'perl'];
function countingPath(dir: string, without: string[] = []): { config: string[]; starts: () => string[] } {
  const log = join(dir, 'starts.log');
  writeFileSync(log, '');
  const wrap = (name: string): string => `#!/bin/bash\nprintf '%s\\n' ${name} >> ${log}\nexec /usr/bin/${name} "$@"\n`;
  const replaced = Object.fromEntries(COUNTED.filter((c) => !without.includes(c)).map((c) => [c, wrap(c)]));
  return {
    config: sessionPathConfig(dir, without, replaced),
    starts: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  };
}

/** An sshd whose session PATH counts the follower's commands (less `without`), and a transport to it. */
function useCountedTarget(
  without: string[],
  options: FollowTransportOptions,
): FollowTransport & { starts: () => string[] } {
  let starts: () => string[] = () => [];
  const f = useFollowTransport('ssh', 'awrl-resident-', {
    ...options,
    sshdConfig: (dir) => {
      const path = countingPath(dir, without);
      starts = path.starts;
      return path.config;
    },
  });
  return {
    get t() {
      return f.t;
    },
    get dir() {
      return f.dir;
    },
    get sshd() {
      return f.sshd;
    },
    starts: () => starts(),
  };
}

describe('the resident reader, inotifywait and perl on the target', () => {
  // Every poll far longer than the waits below: only a pushed change can arrive within them.
  const f = useCountedTarget([], { followPollMs: 60_000 });

  it('delivers each append pushed, without starting a process on the target per change', async () => {
    const p = join(f.dir, 'push.log');
    writeFileSync(p, HEADER);
    const events: FollowEvent[] = [];
    const h = f.t.follow(p, 0, (e) => events.push(e));
    try {
      await waitFor(() => text(events) === HEADER, { what: 'the first line' });
      await waitFor(() => resident(f.sshd!).length === 1, { what: 'the resident reader' });
      expect(h.wake).toEqual({ pushed: true, resident: true, pollMs: 60_000 });
      const before = new Set(targetProcesses(f.sshd!));
      const started = f.starts().length;
      const seen = new Set(before);
      let want = HEADER;
      for (let i = 0; i < 40; i++) {
        const line = `step ${i} ${'x'.repeat(i * 7)}\n`;
        want += line;
        appendFileSync(p, line);
        await waitFor(() => text(events) === want, { timeoutMs: 5_000, intervalMs: 5, what: `append ${i}` });
        for (const pid of targetProcesses(f.sshd!)) seen.add(pid);
      }
      // The same processes throughout (the follower, inotifywait, the reader): none per change.
      expect([...seen].sort()).toEqual([...before].sort());
      expect(f.starts().slice(started)).toEqual([]);
      expectContiguous(events);
    } finally {
      h.close();
    }
    await waitFor(() => targetProcesses(f.sshd!).length === 0, { what: 'nothing left on the target' });
  });

  it('hands back rotation, truncation, a regrow behind the same first bytes, a rewrite and re-creation', async () => {
    const t2 = await openTransport(f.sshd!.alias, { sshConfigFile: f.sshd!.sshConfigFile, followPollMs: 50 });
    const p = join(f.dir, 'turns.log');
    writeFileSync(p, `${HEADER}one\n`);
    const events: FollowEvent[] = [];
    const h = t2.follow(p, 0, (e) => events.push(e));
    const resets = () => events.filter((e) => e.type === 'reset').map((e) => (e.type === 'reset' ? e.reason : ''));
    const readerOn = async (what: string) => {
      await waitFor(() => resident(f.sshd!).length === 1, { what: `the resident reader ${what}` });
    };
    try {
      await waitFor(() => text(events) === `${HEADER}one\n`, { what: 'the first lines' });
      await readerOn('at first');
      appendFileSync(p, 'two\n');
      await waitFor(() => text(events).endsWith('two\n'), { what: 'the append' });

      // Lines written just before the rename arrive before `replaced`.
      appendFileSync(p, 'last of the old\n');
      renameSync(p, `${p}.1`);
      writeFileSync(p, `${HEADER}new file\n`);
      await waitFor(() => text(afterLastReset(events)) === `${HEADER}new file\n`, { what: 'the new log' });
      expect(resets()).toEqual(['replaced']);
      expect(
        text(
          events.slice(
            0,
            events.findIndex((e) => e.type === 'reset'),
          ),
        ),
      ).toBe(`${HEADER}one\ntwo\nlast of the old\n`);
      await readerOn('on the new log');

      // Truncated and regrown past the offset, the first 64 bytes the same: only the bytes before
      // the offset tell.
      writeFileSync(p, `${HEADER}rewritten and longer than before\n`);
      await waitFor(() => resets().length === 2, { what: 'the regrow' });
      expect(resets()[1]).toBe('truncated');
      await waitFor(() => text(afterLastReset(events)) === `${HEADER}rewritten and longer than before\n`, {
        what: 'the rewritten log',
      });
      await readerOn('after the regrow');

      // Rewritten to the same size.
      const size = statSync(p).size;
      writeFileSync(p, HEADER + 'Y'.repeat(size - HEADER.length - 1) + '\n');
      await waitFor(() => resets().length === 3, { what: 'the same-size rewrite' });
      expect(resets()[2]).toBe('truncated');
      await readerOn('after the rewrite');

      // Truncated below the offset, then written again.
      writeFileSync(p, `${HEADER}`);
      await waitFor(() => resets().length === 4, { what: 'the truncation' });
      appendFileSync(p, 'after the truncation\n');
      await waitFor(() => text(afterLastReset(events)) === `${HEADER}after the truncation\n`, {
        what: 'the line after the truncation',
      });

      // Deleted, then created again (older than anything seen: only the inode tells).
      await readerOn('before the deletion');
      unlinkSync(p);
      await waitFor(() => resident(f.sshd!).length === 0, { what: 'the reader to let the deleted log go' });
      writeFileSync(p, `${HEADER}again\n`);
      const past = Date.now() / 1000 - 3600;
      utimesSync(p, past, past);
      await waitFor(() => text(afterLastReset(events)) === `${HEADER}again\n`, { what: 'the re-created log' });
      // `appeared`, or `replaced` where the new log came before the follower's look after the deletion.
      expect(resets()).toHaveLength(5);
      expectContiguous(events);
    } finally {
      h.close();
      await t2.close();
    }
    await waitFor(() => targetProcesses(f.sshd!).length === 0, { what: 'nothing left on the target' });
  });

  it('leaves nothing on the target when the connection goes silent', async () => {
    const proxy = await startTcpProxy(f.sshd!.port);
    const cfg = proxiedConfig(f.sshd!, proxy, 'resident');
    const t3 = await openTransport(cfg.alias, {
      sshConfigFile: cfg.file,
      keepaliveIntervalMs: 300,
      keepaliveCountMax: 2,
      heartbeatIntervalMs: 250,
      heartbeatTimeoutMs: 1500,
    });
    const p = join(f.dir, 'drop.log');
    writeFileSync(p, HEADER);
    const events: FollowEvent[] = [];
    const h = t3.follow(p, 0, (e) => events.push(e));
    try {
      await waitFor(() => resident(f.sshd!).length === 1, { what: 'the resident reader' });
      expect(running(f.sshd!, /^(\/usr\/bin\/)?inotifywait /).length).toBe(1);
      await proxy.hold(); // sshd sees nothing wrong; the follower's heartbeat stops
      await waitFor(() => targetProcesses(f.sshd!).length === 0, {
        timeoutMs: 15_000,
        what: 'the follower, its reader and inotifywait gone',
      });
    } finally {
      h.close();
      await t3.close();
      await proxy.stop();
    }
  });
});

describe("follow's status: how the log's changes come", () => {
  const f = useFollowTransport('ssh', 'awrl-resident-', {
    followPollMs: 100,
    sshdConfig: (dir) => sessionPathConfig(dir, ['inotifywait']),
  });

  it('says once that the log is polled where the target has no inotifywait, and what to install', async () => {
    const p = join(f.dir, 'stdout.log');
    writeFileSync(p, HEADER);
    const target: Target = {
      name: 'head',
      host: f.sshd!.alias,
      workdir: f.dir,
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    const w = createRunWatch({
      transport: f.t,
      target,
      runId: 'r1',
      logPath: p,
      whenEnded: 'stop',
      statePollMs: 60_000,
    });
    const notes: string[] = [];
    w.on((o) => o.type === 'note' && notes.push(o.text));
    w.start();
    try {
      await waitFor(() => notes.some((n) => n.startsWith('log polled')), { what: "the watch's note" });
      appendFileSync(p, 'more\n');
      await waitFor(() => w.offset > HEADER.length, { what: 'the append' });
      expect(notes.filter((n) => n.startsWith('log '))).toEqual([
        'log polled on head every 200 ms once quiet (no inotifywait there: install inotify-tools for changes ' +
          'pushed at once), read by one resident process there',
      ]);
    } finally {
      w.close();
    }
  });
});

describe.each([
  ['no inotifywait', ['inotifywait']],
  ['no perl', ['perl']],
])('the live tail with %s on the target', (_name, without) => {
  const f = useCountedTarget(without, { followPollMs: 50, transport: { followQuietPollMs: 50 } });

  it('is polled, every append delivered once', async () => {
    const p = join(f.dir, 'polled.log');
    writeFileSync(p, HEADER);
    const events: FollowEvent[] = [];
    const h = f.t.follow(p, 0, (e) => events.push(e));
    try {
      await waitFor(() => text(events) === HEADER, { what: 'the first line' });
      if (!without.includes('perl'))
        await waitFor(() => resident(f.sshd!).length === 1, { what: 'the resident reader' });
      const started = f.starts().length;
      let want = HEADER;
      for (let i = 0; i < 10; i++) {
        want += `step ${i}\n`;
        appendFileSync(p, `step ${i}\n`);
        await waitFor(() => text(events) === want, { timeoutMs: 5_000, what: `append ${i}` });
      }
      expectContiguous(events);
      expect(running(f.sshd!, /^(\/usr\/bin\/)?inotifywait /).length).toBe(without.includes('inotifywait') ? 0 : 1);
      expect(h.wake).toEqual({
        pushed: !without.includes('inotifywait'),
        resident: !without.includes('perl'),
        pollMs: 50,
      });
      if (without.includes('perl')) {
        // The bash follower alone: processes started for the deliveries, as before.
        expect(resident(f.sshd!)).toEqual([]);
        expect(f.starts().slice(started).length).toBeGreaterThan(0);
      } else {
        // The resident reader polls: still no process per change.
        expect(resident(f.sshd!).length).toBe(1);
        expect(f.starts().slice(started)).toEqual([]);
      }
    } finally {
      h.close();
    }
    await waitFor(() => targetProcesses(f.sshd!).length === 0, { what: 'nothing left on the target' });
  });
});
