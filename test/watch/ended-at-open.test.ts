// `alerts RUN` of an ended run: the watch is told at open that the run ended (the runs list said
// so), and what its rules say must not depend on whether its own state poll answers before or
// after the log is read. run-a's log holds a 2 h hang in step 7 that a crash ends: the hang is in
// its history (the record after it proves it, as `follow` told it live), ended with the run, in
// either order; the 3 h since the log was last written are no hang (the run ended).
import { describe, it, expect, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../src/remote/index.js';
import type { FollowEvent } from '../../src/remote/transport.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import { serializeRunRecord, type RunRecord } from '../../src/runs/run-record.js';
import type { WatchOutcome } from '../../src/watch/watch-output.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';
import { localTarget } from '../harness/local-run.js';

const LOG = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);

describe('a watch opened on an ended run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-ended-at-open-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A failed local run (its log written 3 h ago), watched as `alerts RUN` does; `first` says which
   *  answer the watch gets first: the state poll's, or the log's records. Its alert history. */
  async function historyWhen(first: 'state' | 'log') {
    const runId = `ended-${first}`;
    const runDir = join(dir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    const logPath = join(runDir, 'stdout.log');
    writeFileSync(logPath, LOG);
    const then = (Date.now() - 3 * 3600_000) / 1000;
    utimesSync(logPath, then, then);
    const record: RunRecord = {
      version: 1,
      runId,
      experiment: 'ended',
      trial: 'trial0',
      target: 'local',
      workdir: dir,
      runDir,
      backend: 'direct',
      argv: ['python3', 'webgym/train.py'],
      secretNames: [],
      createdAt: '2026-01-01T00:00:00Z',
      attempts: [{ n: 1, reason: 'launch', startedAt: '2026-01-01T00:00:00Z', pid: 999_999 }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'exit.code'), '1\n');
    const t = await openTransport('local', { followPollMs: 20 });
    let stateAnswered = false;
    // The watch's offset moves after a delivery's records are told: looked at, not caught from outputs.
    let offset = () => 0;
    // 'state': the log's bytes wait for the state's answer. 'log': the answer waits for the log read.
    const exec = t.exec.bind(t);
    t.exec = async (argv, o) => {
      const r = await exec(argv, o);
      if (argv.includes('awrl-list')) {
        if (first === 'log') await waitFor(() => offset() === LOG.length, { timeoutMs: 20_000, what: 'the log read' });
        stateAnswered = true;
      }
      return r;
    };
    const follow = t.follow.bind(t);
    t.follow = (path, from, onEvent, fo) => {
      const held: FollowEvent[] = [];
      const timer = setInterval(() => {
        if (stateAnswered || first === 'log') for (const e of held.splice(0)) onEvent(e);
      }, 10);
      const h = follow(
        path,
        from,
        (e) => (held.length || (first === 'state' && !stateAnswered) ? held.push(e) : onEvent(e)),
        fo,
      );
      return { ...h, close: () => (clearInterval(timer), h.close()) };
    };
    const w = createRunWatch({
      transport: t,
      target: localTarget(dir),
      runId,
      logPath,
      whenEnded: 'stop',
      storeSeries: 'rules',
      endedAtOpen: true,
    });
    let outcome: WatchOutcome | null = null;
    offset = () => w.offset;
    w.on((o) => {
      if (o.type === 'end') outcome = o.outcome;
    });
    try {
      w.start();
      await waitFor(() => outcome, { timeoutMs: 30_000, what: 'the watch to end' });
      w.tick();
      return {
        outcome,
        stateAnsweredFirst: first,
        history: w.alerts.history.entries().map((e) => `${e.key} fired ${e.fired} ended ${e.endedWithRun}`),
      };
    } finally {
      w.close();
      await t.close();
    }
  }

  it('judges its log the same whether the state poll answers before or after the log is read', async () => {
    const stateFirst = await historyWhen('state');
    const logFirst = await historyWhen('log');
    expect(stateFirst.history).toContain('health/stall/rollout_wait fired 1 ended true');
    expect(logFirst.history).toEqual(stateFirst.history);
    expect(stateFirst.outcome).toEqual(logFirst.outcome);
    expect(stateFirst.outcome).toMatchObject({ kind: 'ended', state: 'failed' });
  });
});
