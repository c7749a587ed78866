// The attempt chain of `runs --json` from its pieces (pure): run.json's attempts, what squeue and the
// chain script said (exit-file times, Slurm's end state and time, the log's attempt starts).
import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildChain, chainFacts, chainShort, parseChainOutput } from '../../src/runs/attempt-chain.js';
import type { ListProbe, RunSummary } from '../../src/runs/list.js';
import type { Target } from '../../src/runs/targets.js';
import { openTransport } from '../../src/remote/index.js';
import { parseRunRecord, type RunRecord } from '../../src/runs/run-record.js';

const ESC = '\x1b';
const line = (time: string, logger: string, msg: string) =>
  `${ESC}[92m${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[92m${time} ${logger}: ${msg}${ESC}[0m`;
const fresh = line(
  '20261129-10:00:01.000',
  'Recover WARNING',
  'Resume info not found at /ck/recover_info. This should not happen if you are resuming.',
);
const recovering = (t: string, g: number) =>
  line(t, 'Recover INFO', `Recovering from StepInfo(epoch=0, epoch_step=${g}, global_step=${g}, steps_per_epoch=40).`);
const stepDone = (t: string, g: number) =>
  line(t, 'StatsLogger INFO', `Epoch 1/1 Step ${g}/40 Train step ${g}/40 done.`);

/** What the chain script prints for one run (marks as base64, as it sends them). */
function chainOutput(runId: string, marks: string[], extra: string[] = []): string {
  return [`@@run\t${runId}`, ...extra, `@@marks\t${Buffer.from(`${marks.join('\n')}\n`).toString('base64')}`].join(
    '\n',
  );
}

function record(attempts: RunRecord['attempts']): RunRecord {
  return parseRunRecord(
    JSON.stringify({
      version: 1,
      runId: 'r1',
      experiment: 'e',
      trial: 't',
      target: 'h',
      workdir: '/w',
      runDir: '/w/.awrl/runs/r1',
      backend: 'slurm',
      argv: ['python3'],
      secretNames: [],
      createdAt: '2026-11-29T10:00:00.000Z',
      attempts,
      chainJobIds: ['18', '19'],
      autoResume: 2,
    }),
  )!;
}

describe('the attempt chain', () => {
  const attempts = [
    { n: 1, reason: 'launch', startedAt: '2026-11-29T10:00:00.000Z', jobId: '17', nodes: ['n1'] },
    {
      n: 2,
      reason: 'auto-resume',
      startedAt: '2026-11-29T11:00:05.000Z',
      jobId: '18',
      after: 'TIMEOUT',
      nodes: ['n2'],
    },
    {
      n: 3,
      reason: 'auto-resume',
      startedAt: '2026-11-29T12:00:09.000Z',
      jobId: '19',
      after: 'PREEMPTED',
      nodes: ['n1'],
    },
  ] as RunRecord['attempts'];
  const marks = [
    `M\t${fresh}`,
    `S\t${stepDone('20261129-10:59:40.500', 12)}`,
    `M\t${recovering('20261129-11:01:00.000', 10)}`,
    `S\t${stepDone('20261129-11:59:50.000', 25)}`,
    `M\t${recovering('20261129-12:01:00.000', 24)}`,
    `S\t${stepDone('20261129-12:30:00.000', 31)}`,
  ];

  it("a Slurm run resumed twice by its chain: each attempt's job, start, end, why, and the step it resumed from", () => {
    const facts = parseChainOutput(
      chainOutput('r1', marks) +
        '\n' +
        [
          '@@job\t17\tTIMEOUT\t2026-11-29T11:00:01.000Z',
          '@@job\t18\tPREEMPTED\t2026-11-29T12:00:02.000Z',
          '@@job\t19\tRUNNING\t-',
        ].join('\n'),
    ).get('r1')!;
    const probe: ListProbe = { slurm: { '19': 'RUNNING' }, slurmExit: {} };
    const chain = buildChain(record(attempts), 'running', probe, facts);
    expect(chain).toEqual([
      {
        n: 1,
        reason: 'launch',
        jobId: '17',
        pid: null,
        nodes: ['n1'],
        startedAt: '2026-11-29T10:00:00.000Z',
        endedAt: '2026-11-29T11:00:01.000Z',
        ended: 'TIMEOUT',
        resumedFromStep: null,
        lastStep: 12,
        lastStepAt: '2026-11-29T10:59:40.500',
        nodeFailures: [],
      },
      {
        n: 2,
        reason: 'auto-resume',
        jobId: '18',
        pid: null,
        nodes: ['n2'],
        startedAt: '2026-11-29T11:00:05.000Z',
        endedAt: '2026-11-29T12:00:02.000Z',
        ended: 'PREEMPTED',
        resumedFromStep: 11,
        lastStep: 25,
        lastStepAt: '2026-11-29T11:59:50.000',
        nodeFailures: [],
      },
      {
        n: 3,
        reason: 'auto-resume',
        jobId: '19',
        pid: null,
        nodes: ['n1'],
        startedAt: '2026-11-29T12:00:09.000Z',
        endedAt: null,
        ended: null,
        resumedFromStep: 25,
        lastStep: 31,
        lastStepAt: '2026-11-29T12:30:00.000',
        nodeFailures: [],
      },
    ]);
    expect(chainShort(chain)).toBe('17 TIMEOUT > 18 from step 11 PREEMPTED > 19 from step 25 running');
  });

  it("once Slurm forgot the jobs: why from the next attempt's guard, the end from the exit file", () => {
    const facts = parseChainOutput(chainOutput('r1', marks, ['@@sexitat\t19\t1795435200'])).get('r1')!;
    const chain = buildChain(record(attempts), 'finished', { slurm: {}, slurmExit: { '19': 0 } }, facts);
    expect(chain.map((a) => [a.ended, a.endedAt])).toEqual([
      ['TIMEOUT', null], // killed at its time limit: nothing on disk says when
      ['PREEMPTED', null],
      ['exit 0', new Date(1795435200 * 1000).toISOString()],
    ]);
  });

  it("when the log's starts cannot be matched one to one, no resume step is guessed", () => {
    // Attempt 2 died before the trainer logged anything: two starts for three attempts.
    const facts = parseChainOutput(chainOutput('r1', [marks[0], marks[1], marks[4], marks[5]])).get('r1')!;
    const chain = buildChain(record(attempts), 'running', { slurm: { '19': 'RUNNING' }, slurmExit: {} }, facts);
    expect(chain.map((a) => [a.resumedFromStep, a.lastStep])).toEqual([
      [null, null],
      [null, null],
      [null, null],
    ]);
    expect(chain.map((a) => a.ended)).toEqual(['TIMEOUT', 'PREEMPTED', null]);
  });

  it('a direct run resumed by hand: the latest attempt ends as the run did, an earlier one is unknown', () => {
    const r = {
      ...record([
        { n: 1, reason: 'launch', startedAt: '2026-11-29T10:00:00.000Z', pid: 100 },
        { n: 2, reason: 'resume', startedAt: '2026-11-29T10:30:00.000Z', pid: 200 },
      ] as RunRecord['attempts']),
      backend: 'direct' as const,
      chainJobIds: [],
    };
    const facts = parseChainOutput(chainOutput('r1', marks.slice(0, 4), ['@@exitat\t1795435200'])).get('r1')!;
    const chain = buildChain(r, 'failed', { slurm: {}, slurmExit: {}, exitCode: 1 }, facts);
    expect(chain.map((a) => [a.pid, a.ended, a.endedAt, a.resumedFromStep])).toEqual([
      [100, 'unknown', null, null],
      [200, 'exit 1', new Date(1795435200 * 1000).toISOString(), 11],
    ]);
    expect(chainShort(chain)).toBe('#1 unknown > #2 from step 11 exit 1');
  });

  describe('matched by the `awrl: attempt N` markers', () => {
    const A = (n: number) => `A\t${n}`;

    it('an attempt that died before the trainer logged anything shifts nothing', () => {
      const facts = parseChainOutput(chainOutput('r1', [A(1), marks[0], marks[1], A(2), A(3), marks[4], marks[5]])).get(
        'r1',
      )!;
      const chain = buildChain(record(attempts), 'running', { slurm: { '19': 'RUNNING' }, slurmExit: {} }, facts);
      expect(chain.map((a) => [a.resumedFromStep, a.lastStep])).toEqual([
        [null, 12],
        [null, null],
        [25, 31],
      ]);
    });

    it('a job Slurm requeued is a new attempt under the same job id', () => {
      const requeued = [
        { n: 1, reason: 'launch', startedAt: '2026-11-29T10:00:00.000Z', jobId: '17', nodes: ['n1'] },
        {
          n: 2,
          reason: 'auto-resume',
          startedAt: '2026-11-29T11:00:05.000Z',
          jobId: '17',
          after: 'REQUEUED',
          restart: 1,
          nodes: ['n2'],
        },
      ] as RunRecord['attempts'];
      const facts = parseChainOutput(
        chainOutput('r1', [A(1), marks[0], marks[1], A(2), marks[2], marks[3]], ['@@sexitat\t17\t1795435200']),
      ).get('r1')!;
      const chain = buildChain(
        { ...record(requeued), chainJobIds: [] },
        'finished',
        { slurm: {}, slurmExit: { '17': 0 } },
        facts,
      );
      expect(chain.map((a) => [a.jobId, a.ended, a.endedAt, a.resumedFromStep, a.lastStep])).toEqual([
        ['17', 'REQUEUED', null, null, 12], // the exit file is the second run's
        ['17', 'exit 0', new Date(1795435200 * 1000).toISOString(), 11, 25],
      ]);
      // One job id twice: the attempts are named by number, as run.json and the log's markers are.
      expect(chainShort(chain)).toBe('#1 → requeued by Slurm → #2 from step 11 exit 0');
    });

    const requeued = [
      { n: 1, reason: 'launch', startedAt: '2026-11-29T10:00:00.000Z', jobId: '5', nodes: ['n1', 'n2', 'n3'] },
      {
        n: 2,
        reason: 'auto-resume',
        startedAt: '2026-11-29T11:00:05.000Z',
        jobId: '5',
        after: 'REQUEUED',
        restart: 1,
      },
      { n: 3, reason: 'auto-resume', startedAt: '2026-11-29T12:00:05.000Z', jobId: '6', after: 'TIMEOUT' },
    ] as RunRecord['attempts'];
    const failure = 'srun: error: Node failure on n3';
    // What the chain script's awk prints for that line (the node's name only).

    it('a requeue after a node failure says which node, and that Slurm (not the chain) ran it again', () => {
      const facts = parseChainOutput(
        chainOutput('r1', [A(1), marks[0], marks[1], 'F\tn3', 'F\tn3', A(2), marks[2], marks[3], A(3), marks[4]]),
      ).get('r1')!;
      const chain = buildChain(
        { ...record(requeued), chainJobIds: ['5', '6'] },
        'running',
        { slurm: { '6': 'RUNNING' }, slurmExit: {} },
        facts,
      );
      expect(chain.map((a) => [a.n, a.ended, a.nodeFailures])).toEqual([
        [1, 'REQUEUED', ['n3']],
        [2, 'TIMEOUT', []],
        [3, null, []],
      ]);
      expect(chainShort(chain)).toBe(
        '#1 node failure n3 → requeued by Slurm → #2 from step 11 TIMEOUT > #3 from step 25 running',
      );
    });

    it("the chain script finds srun's node-failure lines in the attempt's part of the log", async () => {
      const root = mkdtempSync(join(tmpdir(), 'awrl-chain-nf-'));
      const t = await openTransport('local');
      try {
        mkdirSync(join(root, 'r1'));
        const log = ['awrl: attempt 1', stepDone('20261129-10:59:40.500', 12), failure, 'awrl: attempt 2', ''];
        writeFileSync(join(root, 'r1', 'stdout.log'), log.join('\n'));
        const runs = [{ runId: 'r1', record: record(requeued.map(({ jobId: _, ...a }) => a)) }] as RunSummary[];
        const facts = (await chainFacts(t, { workdir: root } as unknown as Target, root, runs)).get('r1');
        expect(facts?.marked[1]).toMatchObject({ lastStep: 12, nodeFailures: ['n3'] });
        expect(facts?.marked[2]?.nodeFailures).toBeUndefined();
      } finally {
        await t.close();
        rmSync(root, { recursive: true, force: true });
      }
    });

    it('the first trainer start after a marker counts (workers echoing the recover line do not)', () => {
      const echo = `(RayRPCServer pid=4821, ip=10.0.0.9) ${recovering('20261129-11:01:02.000', 3)}`;
      const facts = parseChainOutput(
        chainOutput('r1', [
          A(1),
          marks[0],
          marks[1],
          A(2),
          marks[2],
          `S\t${stepDone('20261129-11:01:01.000', 11)}`,
          `M\t${echo}`,
          marks[3],
        ]),
      ).get('r1')!;
      const two = attempts.slice(0, 2) as RunRecord['attempts'];
      const chain = buildChain(
        { ...record(two), chainJobIds: ['18'] },
        'running',
        { slurm: { '18': 'RUNNING' }, slurmExit: {} },
        facts,
      );
      expect(chain.map((a) => [a.resumedFromStep, a.lastStep])).toEqual([
        [null, 12],
        [11, 25],
      ]);
    });

    it('attempts launched before markers existed are still matched by count; the marked ones by number', () => {
      // Attempts 1 and 2 from an older launcher (no markers), attempt 3 resumed by this one.
      const facts = parseChainOutput(chainOutput('r1', [...marks.slice(0, 4), A(3), marks[4], marks[5]])).get('r1')!;
      const chain = buildChain(record(attempts), 'running', { slurm: { '19': 'RUNNING' }, slurmExit: {} }, facts);
      expect(chain.map((a) => [a.resumedFromStep, a.lastStep])).toEqual([
        [null, 12],
        [11, 25],
        [25, 31],
      ]);
      // One unmarked start for two unmarked attempts: those two get nothing; the marked one still does.
      const short = parseChainOutput(chainOutput('r1', [marks[2], marks[3], A(3), marks[4], marks[5]])).get('r1')!;
      expect(
        buildChain(record(attempts), 'running', { slurm: { '19': 'RUNNING' }, slurmExit: {} }, short).map(
          (a) => a.resumedFromStep,
        ),
      ).toEqual([null, null, 25]);
    });
  });
});
