// Traffic that scales with what is shown (#18): with a run open on the dashboard the runs poll lists
// only that run's record, reads no log tail (its feed follows its log) and never another run's log;
// back on the Runs screen every run is listed at once, and a log that did not change (size, mtime)
// is not sent again. Counted on the real commands through the Transport (a LocalTransport that
// counts what its exec sends back).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport, type ExecOptions, type ExecResult } from '../../src/remote/index.js';
import { serializeRunRecord, type RunRecord, type Target } from '../../src/runs/index.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';

/** Every list command (the runs poll) in the order it STARTED, and what it sent back once done: a
 *  listing started before the focus may end after one started after it (a kick runs beside the timer). */
class CountingTransport extends LocalTransport {
  lists: Array<{ args: string[]; out: string }> = [];
  override async exec(argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    const entry = { args: argv.slice(4), out: '' };
    if (argv[3] === 'awrl-list') this.lists.push(entry);
    const r = await super.exec(argv, opts);
    entry.out = r.stdout.toString('utf8');
    return r;
  }
}

const OLD = ['old-a-20261201-100000-0001', 'old-b-20261201-110000-0002', 'old-c-20261201-120000-0003'];
const OPEN = 'open-20261202-090000-0004';
// run-a's log up to its step 1, and its step 2 (what the open run writes later): a listing's tail
// reads the last step from them.
const main = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);
const UPTO_STEP1 = main.subarray(0, main.indexOf('Train step 2/'));
const STEP2 = main.subarray(UPTO_STEP1.length, main.indexOf('Train step 3/'));

describe('the runs poll lists what the screen shows', () => {
  let dir: string;
  let t: CountingTransport;
  let session: LiveSession;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-runs-traffic-'));
    for (const [i, runId] of [...OLD, OPEN].entries()) {
      const runDir = join(dir, '.awrl/runs', runId);
      mkdirSync(runDir, { recursive: true });
      const startedAt = new Date(Date.UTC(2026, 11, 1, 10 + i)).toISOString();
      const record: RunRecord = {
        version: 1,
        runId,
        experiment: runId.split('-')[0],
        trial: 'trial0',
        target: 'local',
        workdir: dir,
        runDir,
        backend: 'direct',
        argv: ['python3', 'train.py'],
        secretNames: [],
        createdAt: startedAt,
        attempts: [{ n: 1, reason: 'launch', startedAt, pid: 999_999 }],
        chainJobIds: [],
        autoResume: 0,
        nodes: 1,
      };
      writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
      writeFileSync(join(runDir, 'exit.code'), '0\n');
      // 200 KiB of log each: more than the 64 KiB tail a listing reads.
      const filler = `${runId} ${'x'.repeat(200)}\n`.repeat(1000);
      writeFileSync(join(runDir, 'stdout.log'), Buffer.concat([Buffer.from(filler), UPTO_STEP1]));
    }
    t = new CountingTransport();
    const target: Target = {
      name: 'box',
      host: 'local',
      workdir: dir,
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    session = createLiveSession({
      targets: [{ target, transport: t }],
      gpuPoller: null,
      runFacts: async () => ({}),
      runsPollMs: 150,
      idleRunsPollMs: 150,
      statePollMs: 60_000,
    });
  });
  afterAll(async () => {
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the dashboard: only the open run, no tail; the Runs screen: every run, unchanged logs not resent', async () => {
    session.start();
    await waitFor(() => session.getState().targets[0].runs.length === 4, { what: 'the first listing' });
    // The first listing reads every tail once (another may still be under way beside it).
    await waitFor(() => t.lists[0].out !== '', { what: 'the first listing to end' });
    expect(t.lists[0].out).toContain('@@tails');
    session.actions.selectRun(OPEN);
    session.actions.showing!('run');
    const from = t.lists.length;
    const focused = () => t.lists.slice(from).findIndex((p) => p.args[1] === OPEN);
    await waitFor(() => focused() >= 0 && t.lists.length >= from + focused() + 4, {
      timeoutMs: 10_000,
      what: 'four polls on the dashboard',
    });
    // Every poll from the first one after the focus (one in flight before it may list everything).
    const polls = t.lists.slice(from + focused());
    for (const p of polls) {
      expect(p.args[1]).toBe(OPEN); // `only` the open run
      expect(p.args[3]).toBe('0'); // no tail
      for (const id of OLD) expect(p.out).not.toContain(id);
      expect(p.out).not.toContain('@@tails');
      expect(Buffer.byteLength(p.out)).toBeLessThan(4096);
    }
    // The Runs screen keeps what it showed of the other runs meanwhile.
    expect(session.getState().targets[0].runs.map((r) => [r.id, r.step])).toEqual([
      [OLD[0], 1],
      [OLD[1], 1],
      [OLD[2], 1],
      [OPEN, 1],
    ]);

    // Back on the Runs screen: every run listed at once; only the log that changed is sent.
    appendFileSync(join(dir, '.awrl/runs', OPEN, 'stdout.log'), STEP2);
    const back = t.lists.length;
    session.actions.showing!('runs');
    await waitFor(() => session.getState().targets[0].runs.find((r) => r.id === OPEN)?.step === 2, {
      what: 'the open run at step 2 on the Runs screen',
    });
    const full = t.lists.slice(back).find((p) => p.args[1] === '*' && p.out.includes('@@tails'))!;
    const sent = Buffer.from(full.out.split('@@tails\t')[1].trim(), 'base64').toString('utf8');
    expect(sent).toContain(`==> ${join(dir, '.awrl/runs', OPEN, 'stdout.log')} <==`);
    for (const id of OLD) expect(sent).not.toContain(`/${id}/stdout.log`);
    expect(session.getState().targets[0].runs.map((r) => r.step)).toEqual([1, 1, 1, 2]);
  });
});
