// A silent outage: the target stops sending anything (a dead path, a suspended VPN) and no reset
// comes, so the connection still says `ready` until keepalive gives up. Here the test's real sshd and
// every session process under it are stopped with SIGSTOP (by PID) while the trainer (this test,
// appending the fixture's steps) goes on writing. The watch says "no data from HOST for N s" while
// still connected, judges no time after the last answer (its log clock stands still), raises no
// alert, and once the target answers again reads every step the trainer wrote meanwhile, once.
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import type { RunWatch } from '../../src/watch/run-watch.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { connectionJsonLine, connectionLine } from '../../src/cli/follow-watch-lines.js';
import { headerLines } from '../../src/ui/panels/header.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { isHangAlert } from '../../src/health/index.js';
import { descendants, startSshd, type SshdHandle } from '../harness/sshd.js';
import { localTarget } from '../harness/local-run.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const LOG = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);

/** The log cut after its `n`-th `Train step … done.` line's record (the next step's first line). */
function upToStep(n: number): Buffer {
  let at = 0;
  for (let i = 0; i < n; i++) at = LOG.indexOf('Train step', at) + 1;
  // A step's record closes at the next record's header: the following `Train step` line's start.
  const next = LOG.indexOf('Train step', at);
  return LOG.subarray(0, next < 0 ? LOG.length : LOG.lastIndexOf(0x0a, next) + 1);
}

describe('a silent outage (the target frozen, no reset sent)', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-silent-'));
  let sshd: SshdHandle | undefined;
  let t: Transport | undefined;
  let watch: RunWatch | undefined;
  let frozen: number[] = [];
  /** SIGSTOP `root` and every process under it, by PID. The follower's short-lived commands may end
   *  between the listing and the signal (ESRCH: gone, nothing to stop), and a process not yet stopped
   *  may start one: listed again until no new one appears. */
  const freeze = (root: number) => {
    const stopped = new Set<number>();
    for (let round = 0; round < 10; round++) {
      const now = [root, ...descendants(root)].filter((p) => !stopped.has(p));
      if (now.length === 0) break;
      for (const p of now) {
        try {
          process.kill(p, 'SIGSTOP');
          stopped.add(p);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
        }
      }
    }
    frozen = [...stopped];
  };
  const thaw = () => {
    for (const p of [...frozen].reverse()) if (pidAlive(p)) process.kill(p, 'SIGCONT');
    frozen = [];
  };
  afterAll(async () => {
    thaw();
    watch?.close();
    await t?.close();
    await sshd?.stop();
    rmSync(workdir, { recursive: true, force: true });
  });

  it('says "no data from HOST" while connected, counts none of that time, then reads every step once', async () => {
    sshd = await startSshd();
    // Keepalive would give up after ~24 s: the silence must be told long before (~2 s here).
    t = await openTransport(sshd.alias, {
      sshConfigFile: sshd.sshConfigFile,
      keepaliveIntervalMs: 8000,
      keepaliveCountMax: 3,
      followPollMs: 50,
    });
    const runId = 'silent-20261201-000000-0001';
    const runDir = join(workdir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    const logPath = join(runDir, 'stdout.log');
    const before = upToStep(3);
    writeFileSync(logPath, before);
    const outs: WatchOutput[] = [];
    watch = createRunWatch({
      transport: t,
      target: localTarget(workdir),
      runId,
      logPath,
      whenEnded: 'pause',
      statePollMs: 300,
      noDataMarginMs: 1500,
      tickMs: 200,
    });
    watch.on((o) => outs.push(o));
    watch.start();
    const w = watch;
    await waitFor(() => w.offset === before.length && w.alerts.logNow(Date.now()) !== null, {
      timeoutMs: 30_000,
      what: 'the first steps read and the log clock running',
    });

    // Freeze the sshd and every session process under it: nothing is sent, nothing is reset.
    freeze(sshd.pid);
    const frozenAt = Date.now();
    // The trainer steps on meanwhile.
    const after = upToStep(5);
    appendFileSync(logPath, after.subarray(before.length));

    const silent = await waitFor(
      () => outs.find((o): o is Extract<WatchOutput, { type: 'connection' }> => o.type === 'connection'),
      { timeoutMs: 15_000, what: 'the silence told' },
    );
    expect(silent.state).toBe('silent');
    // Still connected as far as ssh knows: keepalive has not given up.
    expect(t.state.state).toBe('ready');
    expect(watch.phase).toBe('unobserved');
    expect(watch.silentSince).not.toBeNull();
    // Told within the poll interval plus the margin (and a check), counted from the last answer.
    expect(Date.now() - frozenAt).toBeLessThan(8000);
    // Bytes already in the socket when sshd stopped still arrive just after (seen: 1 ms); the
    // silence is counted from them, not from when it was noticed (margin + poll: seconds later).
    expect(silent.since).toBeLessThanOrEqual(frozenAt + 300);
    // The rules' clock stands still: no verdict counts the time nothing was heard.
    const clockAt = w.alerts.logNow(Date.now());
    await waitFor(() => Date.now() - frozenAt > 4000, { timeoutMs: 10_000, intervalMs: 100, what: 'time to pass' });
    expect(w.alerts.logNow(Date.now())).toBe(clockAt);
    expect(w.offset).toBe(before.length);

    // What `follow` and the cockpit's header say meanwhile.
    expect(connectionLine(silent, 'qa')).toMatch(
      /^no data from qa for \d+ s \(nothing since \d{4}-.*\), although connected/,
    );
    expect(JSON.parse(connectionJsonLine(silent, 'qa'))).toMatchObject({
      type: 'connection',
      state: 'silent',
      target: 'qa',
    });
    const header = headerLines({
      runId,
      target: 'qa',
      connection: t.state,
      connectionAt: 0,
      runState: 'running',
      figures: {
        step: 3,
        totalSteps: 64,
        epoch: 1,
        epochs: 1,
        startedAt: null,
        lastStepAt: null,
        etaS: null,
        stepTimeS: null,
        episodesPerS: null,
        trainTokensPerS: null,
        rolloutWaitS: null,
      },
      now: silent.since + 17_000,
      silentSince: silent.since,
    })
      .flat()
      .map((s) => (typeof s === 'string' ? s : s.t))
      .join('');
    expect(header).toContain('no data from qa for 17 s');
    expect(header).not.toContain('connected');

    thaw();
    await waitFor(() => outs.some((o) => o.type === 'connection' && o.state === 'answering'), {
      timeoutMs: 20_000,
      what: 'the target answering again',
    });
    await waitFor(() => w.offset === after.length, { timeoutMs: 20_000, what: 'the steps written meanwhile' });
    // Never declared lost: it was a silence, and it is over.
    expect(outs.filter((o) => o.type === 'connection').map((o) => (o as { state: string }).state)).toEqual([
      'silent',
      'answering',
    ]);
    expect(watch.silentSince).toBeNull();
    expect(watch.phase).toBe('following');
    // Every step once, in order; no alert from the silence.
    const steps = outs.flatMap((o) => (o.type === 'record' && o.record.type === 'step' ? [o.record.globalStep] : []));
    const expected = parseLogBytes(after).flatMap((e) => (e.type === 'step' ? [e.globalStep] : []));
    expect(steps.slice(0, expected.length)).toEqual(expected);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    expect(outs.filter((o) => o.type === 'alert' && isHangAlert(o.alert))).toEqual([]);
  }, 90_000);
});
