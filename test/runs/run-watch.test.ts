// The watch's pure parts (its lifecycle; the rules' clock while the log cannot be read) and one
// real attach: a run hung 3 h ago is reported as hung once its backlog is read, through RunWatch.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  initialLifecycle,
  logClockRuns,
  reduceWatch,
  watchPhase,
  type WatchAction,
} from '../../src/watch/watch-lifecycle.js';
import { RunAlerts, isHangAlert } from '../../src/health/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import type { TrainerEvent } from '../../src/trainer-log/index.js';
import { openTransport } from '../../src/remote/index.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import type { RunWatchOptions } from '../../src/watch/run-watch.js';
import type { Target } from '../../src/runs/targets.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { lastLogLines } from '../../src/runs/log-tail.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';
import { localTarget } from '../harness/local-run.js';

describe('the watch lifecycle', () => {
  const run = (actions: WatchAction[], connected = true) => actions.reduce(reduceWatch, initialLifecycle(connected));
  it.each<[string, WatchAction[], string, boolean]>([
    ['opened', [], 'attaching', true],
    ['a long log', [{ type: 'backfill' }], 'backfilling', true],
    ['following', [{ type: 'backfill' }, { type: 'follow' }], 'following', true],
    ['connection lost', [{ type: 'follow' }, { type: 'connection', ready: false }], 'unobserved', false],
    [
      'and back',
      [{ type: 'follow' }, { type: 'connection', ready: false }, { type: 'connection', ready: true }],
      'following',
      true,
    ],
    [
      'a Slurm job queued (requeued, pending)',
      [{ type: 'follow' }, { type: 'run-state', state: 'pending' }],
      'queued',
      false,
    ],
    [
      'running again: a new attempt, its first record to come',
      [{ type: 'follow' }, { type: 'run-state', state: 'pending' }, { type: 'run-state', state: 'running' }],
      'following',
      false,
    ],
    [
      "running again, the new attempt's first record read",
      [
        { type: 'follow' },
        { type: 'run-state', state: 'pending' },
        { type: 'run-state', state: 'running' },
        { type: 'record' },
      ],
      'following',
      true,
    ],
    [
      'the log replaced (rotated): nothing judged until it holds a record',
      [{ type: 'follow' }, { type: 'log-reset' }],
      'following',
      false,
    ],
    ['and its first record', [{ type: 'follow' }, { type: 'log-reset' }, { type: 'record' }], 'following', true],
    [
      'the target silent while connected',
      [{ type: 'follow' }, { type: 'answering', answering: false }],
      'unobserved',
      false,
    ],
    [
      'and answering again',
      [{ type: 'follow' }, { type: 'answering', answering: false }, { type: 'answering', answering: true }],
      'following',
      true,
    ],
    [
      'the run ended',
      [{ type: 'follow' }, { type: 'run-state', state: 'failed' }, { type: 'settle' }],
      'settling',
      false,
    ],
    ['read to its end', [{ type: 'follow' }, { type: 'settle' }, { type: 'settled' }], 'ended', true],
    [
      'ended, then offline',
      [{ type: 'follow' }, { type: 'settle' }, { type: 'settled' }, { type: 'connection', ready: false }],
      'ended',
      false,
    ],
    ['resumed', [{ type: 'follow' }, { type: 'settle' }, { type: 'settled' }, { type: 'resume' }], 'resumed', false],
    [
      'resumed, bytes read (the launcher, Ray: no record yet)',
      [{ type: 'follow' }, { type: 'settle' }, { type: 'settled' }, { type: 'resume' }, { type: 'bytes' }],
      'following',
      false,
    ],
    [
      "resumed, the new attempt's first record read",
      [
        { type: 'follow' },
        { type: 'settle' },
        { type: 'settled' },
        { type: 'resume' },
        { type: 'bytes' },
        { type: 'record' },
      ],
      'following',
      true,
    ],
  ])('%s', (_name, actions, phase, clock) => {
    const l = run(actions);
    expect(watchPhase(l)).toBe(phase);
    expect(logClockRuns(l)).toBe(clock);
  });
});

const step = (g: number, sec: number): TrainerEvent => ({
  type: 'step',
  epoch: 1,
  epochs: 1,
  step: g,
  stepsPerEpoch: 100,
  globalStep: g,
  totalSteps: 100,
  time: `2026-05-25T12:${String(Math.floor(sec / 60)).padStart(2, '0')}:${String(sec % 60).padStart(2, '0')}.000`,
  stats: { 'rollout/reward': 0.5 },
});

describe('the rules while the log cannot be read', () => {
  it('an outage is not silence; after it, silence is judged on the log', () => {
    const a = new RunAlerts(new MetricsStore());
    let wall = 1_000_000;
    for (let g = 1; g <= 5; g++) a.ingest(step(g, g * 10), wall); // 10 s steps
    const hung = () => a.evaluate(wall).some(isHangAlert);
    wall += 5_000;
    a.unobserved(wall);
    wall += 60_000; // a minute offline: 6 median steps
    expect(hung()).toBe(false);
    a.observed(wall);
    expect(hung()).toBe(false);
    wall += 20_000; // 25 s of observed silence in all: not yet 3 × 10 s
    expect(hung()).toBe(false);
    wall += 10_000; // 35 s observed: a hang
    expect(hung()).toBe(true);
  });

  it('the log measured after the outage says it was silent all along: the hang is there at once', () => {
    const a = new RunAlerts(new MetricsStore());
    let wall = 1_000_000;
    for (let g = 1; g <= 5; g++) a.ingest(step(g, g * 10), wall);
    a.unobserved(wall);
    wall += 60_000;
    a.observed(wall);
    // Its mtime: last written right after step 5, a minute ago.
    expect(a.logWrittenAt(wall - 60_000 - 1)).toBe(true);
    expect(a.evaluate(wall).some(isHangAlert)).toBe(true);
  });
});

describe('the last lines of a log', () => {
  it('non-blank, ANSI stripped, CR applied, bounded; a mid-line start is dropped', () => {
    const b = Buffer.from(
      'tail of a line\nawrl: attempt 1\n\x1b[31mbash: /nonexistent/python: No such file or directory\x1b[0m\n\nprogress 10%\rprogress 100%\n',
    );
    expect(lastLogLines(b, 10, true)).toEqual([
      'awrl: attempt 1',
      'bash: /nonexistent/python: No such file or directory',
      'progress 100%',
    ]);
    expect(lastLogLines(b, 1)).toEqual(['progress 100%']);
  });
});

describe('RunWatch attaching to a run hung 3 h ago', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-run-watch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // The follower starts while the log's silence is measured: what it delivers first is held until the
  // answer, so an answer that comes late (a loaded head) changes nothing.
  it.each([0, 600])(
    'reports the hang once the backlog is read, saying how long the log has been silent (silence answered after %i ms)',
    async (lateMs) => {
      const main = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);
      // run-a up to its 2 h hang in step 7's rollout wait (the crash that ends it cut off).
      const hung = main.subarray(0, main.lastIndexOf(0x0a, main.indexOf('RLTrainer ERROR')) + 1);
      const runDir = join(dir, `late${lateMs}`, '.awrl', 'runs', 'hung');
      mkdirSync(runDir, { recursive: true });
      const logPath = join(runDir, 'stdout.log');
      writeFileSync(logPath, hung);
      const mtime = (Date.now() - 3 * 3600_000) / 1000;
      utimesSync(logPath, mtime, mtime);
      const t = await openTransport('local', { followPollMs: 20 });
      // The local transport measures the silence with its own stat of the log (follow-alerts.ts).
      const stat = t.stat.bind(t);
      let silenceAsked = 0;
      t.stat = async (path) => {
        const r = await stat(path);
        if (path === logPath) {
          silenceAsked++;
          await new Promise((resolve) => setTimeout(resolve, lateMs));
        }
        return r;
      };
      const target: Target = localTarget(join(dir, `late${lateMs}`));
      const outs: WatchOutput[] = [];
      const w = createRunWatch({
        transport: t,
        target,
        runId: 'hung',
        logPath,
        whenEnded: 'stop',
        statePollMs: 60_000,
      });
      // Whether the history was being read when each record came (the cockpit holds its heap then).
      const backlog: boolean[] = [];
      w.on((o) => {
        outs.push(o);
        if (o.type === 'record') backlog.push(w.readingBacklog);
      });
      try {
        w.start();
        const hang = await waitFor(() => outs.find((o) => o.type === 'alert' && isHangAlert(o.alert)), {
          timeoutMs: 20_000,
          what: 'the hang alert',
        });
        expect(w.offset).toBe(hung.length);
        expect(hang.type === 'alert' && hang.alert.detail).toMatch(/the log has been silent for 3 h$/);
        // The burst is flagged from its first record; a record the reader releases only once the log
        // went quiet (its end is read by then) may come after it, so not every one is asserted.
        expect(backlog.length).toBeGreaterThan(0);
        expect(backlog[0]).toBe(true);
        expect(w.readingBacklog).toBe(false);
        expect(silenceAsked).toBeGreaterThan(0);
      } finally {
        w.close();
        await t.close();
      }
    },
  );
});

/** Run `runId`'s dir under `workdir` with `log` as its log (null: none yet), and a local transport. */
async function localRun(workdir: string, runId: string, log: Buffer | null) {
  const runDir = join(workdir, '.awrl', 'runs', runId);
  mkdirSync(runDir, { recursive: true });
  const logPath = join(runDir, 'stdout.log');
  if (log) writeFileSync(logPath, log);
  return { logPath, t: await openTransport('local', { followPollMs: 20 }) };
}

describe('RunWatch attaching to a whole log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-run-watch-first-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A local watch of `runId` whose log has `log` (null: no log), recording in order the follower's
   *  first bytes and each look at the run's state (the runs-list script). */
  async function watchOrder(runId: string, log: Buffer | null) {
    const { logPath, t } = await localRun(dir, runId, log);
    const order: string[] = [];
    const exec = t.exec.bind(t);
    t.exec = (argv, o) => {
      if (argv.includes('awrl-list')) order.push('state');
      return exec(argv, o);
    };
    const follow = t.follow.bind(t);
    t.follow = (path, from, onEvent, fo) => {
      let first = true;
      return follow(
        path,
        from,
        (e) => {
          if (e.type === 'data' && first) {
            first = false;
            order.push('bytes');
          }
          onEvent(e);
        },
        fo,
      );
    };
    const w = createRunWatch({ transport: t, target: localTarget(dir), runId, logPath, whenEnded: 'stop' });
    return { t, w, order };
  }

  it("looks at the run's state once the follower's first bytes came, not while it starts", async () => {
    const { t, w, order } = await watchOrder('whole', readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`));
    try {
      w.start();
      await waitFor(() => order.includes('state'), { timeoutMs: 20_000, what: 'a look at the state' });
      expect(order[0]).toBe('bytes');
    } finally {
      w.close();
      await t.close();
    }
  });

  it('a log that is not there yet: the state is looked at all the same', async () => {
    const { t, w, order } = await watchOrder('nolog', null);
    try {
      w.start();
      await waitFor(() => order.includes('state'), { timeoutMs: 20_000, what: 'a look at the state' });
      expect(order).toEqual(['state']);
    } finally {
      w.close();
      await t.close();
    }
  });
});

describe("RunWatch given the run's config facts later", () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-run-watch-facts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The alerts (ids, in order) a watch of run-a's main.log tells, read to its end. */
  async function alertsOf(runId: string, facts: RunWatchOptions['facts']): Promise<string[]> {
    const log = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);
    const { logPath, t } = await localRun(dir, runId, log);
    const ids: string[] = [];
    const w = createRunWatch({ transport: t, target: localTarget(dir), runId, logPath, whenEnded: 'stop', facts });
    w.on((o) => void (o.type === 'alert' && ids.push(o.alert.id)));
    try {
      w.start();
      await waitFor(() => w.offset === log.length, { timeoutMs: 20_000, what: 'the whole log read' });
    } finally {
      w.close();
      await t.close();
    }
    return ids;
  }

  it('holds the records until they come: the same alerts as facts given at once (the staleness budget)', async () => {
    const budget = { maxHeadOffpolicyness: 1 };
    const atOnce = await alertsOf('at-once', budget);
    expect(atOnce).toContain('staleness-over-budget');
    const late = await alertsOf('late', new Promise((resolve) => setTimeout(() => resolve(budget), 400)));
    expect(late).toEqual(atOnce);
    // Without the facts the budget rule says nothing: the comparison above is not of silences.
    expect(await alertsOf('none', {})).not.toContain('staleness-over-budget');
  });
});
