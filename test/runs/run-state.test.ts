import { describe, it, expect } from 'vitest';
import {
  deriveRunState,
  canTransition,
  parseListOutput,
  makeRunId,
  isValidRunId,
  parseRunRecord,
  serializeRunRecord,
  type RunRecord,
  type RunProbe,
} from '../../src/runs/index.js';

const base: RunRecord = {
  version: 1,
  runId: 'r',
  experiment: 'e',
  trial: 't',
  target: 'local',
  workdir: '/w',
  runDir: '/w/.awrl/runs/r',
  backend: 'direct',
  argv: ['python3'],
  secretNames: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  attempts: [],
  chainJobIds: [],
  autoResume: 0,
  nodes: 1,
};
const direct = (over: Partial<RunRecord> = {}): RunRecord => ({
  ...base,
  attempts: [{ n: 1, reason: 'launch', startedAt: 'x', pid: 42 }],
  ...over,
});
const slurm = (over: Partial<RunRecord> = {}): RunRecord => ({
  ...base,
  backend: 'slurm',
  attempts: [{ n: 1, reason: 'launch', startedAt: 'x', jobId: '10' }],
  chainJobIds: ['11'],
  autoResume: 1,
  ...over,
});

describe('run state derivation', () => {
  it.each<[string, RunRecord, RunProbe, string, RegExp]>([
    ['no attempt yet, being launched', base, { launching: true }, 'submitted', /not started/],
    ['no attempt, no launcher', base, {}, 'failed', /abandoned launch/],
    ['direct alive', direct(), { alive: true }, 'running', /pid 42/],
    ['direct exit 0', direct(), { alive: false, exitCode: 0 }, 'finished', /exit 0/],
    ['direct exit 1', direct(), { alive: false, exitCode: 1 }, 'failed', /exit 1/],
    ['direct vanished', direct(), { alive: false }, 'failed', /without an exit status/],
    [
      'direct, another user cannot read its environ',
      direct(),
      { alive: false, aliveUnknownAs: 'bob' },
      'unknown',
      /pid 42 alive, not readable as bob/,
    ],
    [
      'direct, unreadable but its exit status written',
      direct(),
      { alive: false, aliveUnknownAs: 'bob', exitCode: 0 },
      'finished',
      /exit 0/,
    ],
    ['direct stopped', direct({ stopRequestedAt: 'T' }), { alive: false, exitCode: 143 }, 'stopped', /stopped at T/],
    ['direct stopping', direct({ stopRequestedAt: 'T' }), { alive: true }, 'running', /stopping/],
    ['slurm pending', slurm(), { slurm: { '10': 'PENDING', '11': 'PENDING' } }, 'pending', /job 10 PENDING/],
    ['slurm running', slurm(), { slurm: { '10': 'RUNNING', '11': 'PENDING' } }, 'running', /job 10 RUNNING/],
    ['slurm completed', slurm(), { slurm: { '10': 'COMPLETED', '11': 'CANCELLED' } }, 'finished', /COMPLETED/],
    [
      'slurm timeout, chain queued',
      slurm(),
      { slurm: { '10': 'TIMEOUT', '11': 'PENDING' } },
      'pending',
      /job 11 PENDING after TIMEOUT/,
    ],
    [
      'slurm timeout, chain started',
      slurm(),
      { slurm: { '10': 'TIMEOUT', '11': 'RUNNING' } },
      'running',
      /job 11 RUNNING/,
    ],
    ['slurm timeout, no chain', slurm({ chainJobIds: [] }), { slurm: { '10': 'TIMEOUT' } }, 'timeout', /TIMEOUT/],
    [
      'slurm failed: the chain does not count',
      slurm(),
      { slurm: { '10': 'FAILED', '11': 'PENDING' } },
      'failed',
      /FAILED/,
    ],
    [
      'slurm cancelled',
      slurm({ stopRequestedAt: 'T' }),
      { slurm: { '10': 'CANCELLED', '11': 'CANCELLED' } },
      'stopped',
      /cancelled/,
    ],
    ['slurm forgot, exit file 0', slurm(), { slurm: {}, slurmExit: { '10': 0 } }, 'finished', /exit 0/],
    ['slurm forgot, no file', slurm(), { slurm: {} }, 'failed', /unknown to Slurm/],
    [
      'attempt 2 running',
      slurm({
        attempts: [
          { n: 1, reason: 'launch', startedAt: 'x', jobId: '10' },
          { n: 2, reason: 'auto-resume', startedAt: 'y', jobId: '11', after: 'TIMEOUT' },
        ],
      }),
      { slurm: { '10': 'TIMEOUT', '11': 'RUNNING' } },
      'running',
      /attempt 2/,
    ],
  ])('%s', (_name, record, probe, state, detail) => {
    const d = deriveRunState(record, probe);
    expect(d.state).toBe(state);
    expect(d.detail).toMatch(detail);
  });

  it("allows the machine's moves and refuses jumps", () => {
    expect(canTransition('submitted', 'pending')).toBe(true);
    expect(canTransition('timeout', 'pending')).toBe(true);
    expect(canTransition('finished', 'timeout')).toBe(false);
    expect(canTransition('stopped', 'finished')).toBe(false);
  });
});

describe('run record and ids', () => {
  it('round-trips and rejects junk', () => {
    const r = direct();
    expect(parseRunRecord(serializeRunRecord(r))).toEqual(r);
    expect(serializeRunRecord(r).trimEnd()).not.toContain('\n');
    expect(parseRunRecord('{"version":2}')).toBeNull();
    expect(parseRunRecord('nope')).toBeNull();
  });

  it('makes safe, sortable ids and refuses path tricks', () => {
    const id = makeRunId('intuition model/../x', new Date(Date.UTC(2026, 4, 25, 12, 0, 9)), () => 0.5);
    expect(id).toBe('intuition-model-x-20260525-120009-8000');
    expect(isValidRunId(id)).toBe(true);
    for (const bad of ['../x', 'a/b', '', '-x', 'a..b']) expect(isValidRunId(bad)).toBe(false);
  });
});

describe('list script output', () => {
  it('turns marked lines into summaries with step and reward from the log tail', () => {
    const tail = Buffer.from(
      '==> /w/.awrl/runs/r2/stdout.log <==\nother run\n\n==> /w/.awrl/runs/r1/stdout.log <==\n' +
        'partial line from the middle\n' +
        '\x1b[37m(AReaL)\x1b[0m \x1b[37m20260525-12:00:00.000 StatsLogger INFO: Epoch 1/1 Step 3/8 Train step 3/8 done.\x1b[0m\n' +
        '\x1b[37m(AReaL)\x1b[0m \x1b[37m20260525-12:00:00.000 StatsLogger INFO: Stats (1/1):\x1b[0m\n' +
        '\x1b[37m(AReaL)\x1b[0m \x1b[37m20260525-12:00:00.000 StatsLogger INFO: \n' +
        '╒════════════════╤════════════╕\n│ rollout/reward │ 4.5000e-01 │\n╘════════════════╧════════════╛\x1b[0m\n',
    ).toString('base64');
    const text = [
      '@@run\tr2',
      `@@json\t${JSON.stringify(slurm({ runId: 'r2', createdAt: '2026-01-02T00:00:00.000Z' }))}`,
      '@@alive\t0',
      '@@sexit\t10\t0',
      '@@run\tr1',
      `@@json\t${JSON.stringify(direct({ runId: 'r1' }))}`,
      '@@alive\t1',
      '@@run\tjunk',
      '@@json\t{',
      '@@alive\t0',
      '@@squeue\t10\tRUNNING',
      '@@squeue\t11\tPENDING',
      `@@tails\t${tail}`,
    ].join('\n');
    const all = parseListOutput(text);
    // A run.json cut short (`{`) is listed, unknown, with the reason and what its pid file says.
    expect(all[0]).toMatchObject({
      runId: 'junk',
      state: 'unknown',
      detail: 'run.json unreadable (cut short or corrupt); its job (job.pid) is not running',
    });
    const runs = all.slice(1);
    expect(runs.map((r) => [r.runId, r.state])).toEqual([
      ['r1', 'running'],
      ['r2', 'running'],
    ]);
    expect(runs[0]).toMatchObject({ globalStep: 3, totalSteps: 8, lastReward: 0.45 });
    expect(runs[1].globalStep).toBeUndefined();
  });
});
