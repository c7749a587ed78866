// The node-failure alert's rules (pure), on the texts Slurm 22.05 printed on the one-machine cluster
// (test/multinode/node-failure.test.ts runs them for real).
import { describe, it, expect } from 'vitest';
import {
  nodeFailed,
  nodeFailureAlert,
  parseNodeFacts,
  parseScontrolJob,
  slurmVerdict,
  type NodeFacts,
} from '../../src/watch/node-failure.js';

const JOB_PENDING =
  'JobId=5 JobName=awrl-x UserId=root(0) JobState=PENDING Reason=BeginTime Dependency=(null) Requeue=1 Restarts=1 ' +
  'BatchFlag=1 StartTime=2026-12-01T21:36:48 NodeList=(null) NumNodes=4';
const facts = (job: string, nodes: string[], alloc: string[] = []): NodeFacts =>
  parseNodeFacts(
    [`@@job\t${job}`, ...alloc.map((a) => `@@alloc\t${a}`), ...nodes.map((n) => `@@node\t${n}`)].join('\n'),
  );
const FOUR = ['n1', 'n2', 'n3', 'n4'];
const DOWN = [
  'n1|idle|none|Unknown',
  'n2|idle|none|Unknown',
  'n3|down*|Not responding|2026-12-01T21:34:46',
  'n4|idle|none|Unknown',
];

describe('node failure (pure)', () => {
  it('reads scontrol and sinfo as Slurm prints them', () => {
    expect(parseScontrolJob(JOB_PENDING)).toEqual({
      jobId: '5',
      state: 'PENDING',
      reason: 'BeginTime',
      restarts: 1,
      nodeList: '',
      startTime: '2026-12-01T21:36:48',
    });
    const f = facts(JOB_PENDING, DOWN);
    expect(f.nodes[2]).toEqual({ node: 'n3', state: 'down*', reason: 'Not responding', since: '2026-12-01T21:34:46' });
    expect(f.nodes.map(nodeFailed)).toEqual([false, false, true, false]);
  });

  it('verdicts: DOWN with its reason, a silent node still allocated, a drained one', () => {
    expect(slurmVerdict({ node: 'n3', state: 'down*', reason: 'Not responding', since: null })).toBe(
      'DOWN (Not responding)',
    );
    expect(slurmVerdict({ node: 'n3', state: 'mixed*', reason: 'none', since: null })).toBe('MIXED, not responding');
    expect(slurmVerdict({ node: 'n3', state: 'drain', reason: 'Kill task failed', since: null })).toBe(
      'DRAIN (Kill task failed)',
    );
    expect(nodeFailed({ node: 'n3', state: 'mixed', reason: 'none', since: null })).toBe(false);
  });

  it("requeued and pending: the issue's sentence; no failed node: no alert", () => {
    const a = nodeFailureAlert({ runId: 'r', attemptNodes: FOUR, jobId: '5', facts: facts(JOB_PENDING, DOWN) });
    expect(a?.title).toBe(
      'node n3 failed: Slurm set it DOWN (Not responding) and requeued job 5; the run resumes from its last recover checkpoint when the job starts again',
    );
    expect(a?.severity).toBe('warning');
    expect(a?.advice).toContain('Slurm lets it start from 2026-12-01T21:36:48');
    expect(
      nodeFailureAlert({
        runId: 'r',
        attemptNodes: FOUR,
        jobId: '5',
        facts: facts(
          JOB_PENDING,
          DOWN.map((l) => l.replace('down*|Not responding', 'idle|none')),
        ),
      }),
    ).toBeNull();
    // A failed node outside the attempt is someone else's trouble.
    expect(
      nodeFailureAlert({ runId: 'r', attemptNodes: ['n1', 'n2'], jobId: '5', facts: facts(JOB_PENDING, DOWN) }),
    ).toBeNull();
  });

  it('running again elsewhere, ended NODE_FAIL (with and without a chain), still running on a silent node', () => {
    const running = 'JobId=5 JobState=RUNNING Reason=None Restarts=1 NodeList=n[1-2,4-5]';
    const back = nodeFailureAlert({
      runId: 'r',
      attemptNodes: FOUR,
      jobId: '5',
      facts: facts(running, DOWN, ['n1', 'n2', 'n4', 'n5']),
      requeuedAttempt: { n: 2, nodes: ['n1', 'n2', 'n4', 'n5'] },
    });
    expect(back?.title).toMatch(
      /requeued job 5; attempt 2 runs on n1, n2, n4, n5 \(Slurm's requeue, not the auto-resume chain\)/,
    );
    expect(back?.severity).toBe('info');
    const ended = 'JobId=5 JobState=NODE_FAIL Reason=NodeDown Restarts=0 NodeList=n[1-4]';
    expect(nodeFailureAlert({ runId: 'r', attemptNodes: FOUR, jobId: '5', facts: facts(ended, DOWN) })?.advice).toBe(
      'resume it: awrl-tui --launch --resume r',
    );
    expect(
      nodeFailureAlert({ runId: 'r', attemptNodes: FOUR, jobId: '5', facts: facts(ended, DOWN), chainNext: true })
        ?.title,
    ).toMatch(/ended job 5 \(NODE_FAIL\); the auto-resume chain's next job resumes/);
    const silent = nodeFailureAlert({
      runId: 'r',
      attemptNodes: FOUR,
      jobId: '5',
      facts: facts(
        'JobId=5 JobState=RUNNING Restarts=0',
        DOWN.map((l) => l.replace('down*|Not responding|2026-12-01T21:34:46', 'mixed*|none|Unknown')),
        FOUR,
      ),
    });
    expect(silent?.title).toBe('node n3 does not respond: Slurm says MIXED, not responding; job 5 is still RUNNING');
    // Each stage is its own alert (a follower says each once).
    expect(
      new Set([
        back?.id,
        silent?.id,
        nodeFailureAlert({ runId: 'r', attemptNodes: FOUR, jobId: '5', facts: facts(JOB_PENDING, DOWN) })?.id,
      ]).size,
    ).toBe(3);
  });
});
