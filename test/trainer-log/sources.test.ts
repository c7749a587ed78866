// Writers other than the controller: merged.log role prefixes, Ray-forwarded lines, bare tracebacks.
import { describe, expect, it } from 'vitest';
import { parseAll, rec, stepRecords, table } from './helpers.js';

const T = '20260601-10:00:00.000';
const MEM =
  'Memory-Usage after model creation/loading: memory allocated (GB): 15.00, memory reserved (GB): 16.00, device memory used/total (GB): 17.00/79.11';
const STATS: [string, string][] = [
  ['rollout/reward', '2.5000e-01'],
  ['ppo_actor/update/grad_norm', 'nan'],
  ['timeperf/train_step', '1.2000e+02'],
  ['ppo_actor/n_tokens', '1.2881e+07'],
  ['a/b', '-3.0000e-04'],
  ['c', '7'],
  ['d', 'inf'],
];

describe('merged.log writers', () => {
  const log = [
    `[main]    ${rec(T, 'IOStruct', 'INFO', MEM.replace('after model creation/loading', 'ppo update'))}`,
    `[actor]   ${rec(T, 'IOStruct', 'INFO', MEM)}`,
    `[actor]   ${rec(T, '[FSDPEngine Rank 3]', 'ERROR', 'Worker step crashed')}`,
    '[actor]   Traceback (most recent call last):',
    '[actor]     File "x.py", line 1, in f',
    '[main]    ' + stepRecords(T, 1, STATS).split('\n')[0],
    '[actor]   torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    ...stepRecords(T, 1, STATS)
      .split('\n')
      .slice(1)
      .map((l, i) => (i < 2 ? '[main]    ' + l : l)),
    `[rollout] ${rec(T, 'WebGymWorkflow', 'WARNING', 'Instance alloc attempt 2/5 failed')}`,
    `[actor]   ${rec(T, 'RLTrainer', 'INFO', 'Training completes! Total time elapsed 1.0.')}`,
    `[main]    ${rec(T, 'RLTrainer', 'INFO', 'Training completes! Total time elapsed 1.0.')}`,
    '',
  ].join('\n');
  const events = parseAll(log);

  it('reads worker Memory-Usage with its source, and keeps a worker "completes" out of the controller events', () => {
    expect(events.filter((e) => e.type === 'memory')).toEqual([
      {
        type: 'memory',
        phase: 'ppo update',
        allocatedGB: 15,
        reservedGB: 16,
        usedGB: 17,
        totalGB: 79.11,
        time: '2026-06-01T10:00:00.000',
        source: 'main',
      },
      {
        type: 'memory',
        phase: 'after model creation/loading',
        allocatedGB: 15,
        reservedGB: 16,
        usedGB: 17,
        totalGB: 79.11,
        time: '2026-06-01T10:00:00.000',
        source: 'actor',
      },
    ]);
    expect(events.filter((e) => e.type === 'finished')).toHaveLength(1);
  });

  it('collects a worker traceback across interleaved controller lines, with its source', () => {
    const err = events.find((e) => e.type === 'error');
    expect(err).toMatchObject({
      type: 'error',
      kind: 'oom',
      source: 'actor',
      message: 'Worker step crashed',
      time: '2026-06-01T10:00:00.000',
    });
    expect(err && err.type === 'error' && err.detail.split('\n')).toEqual([
      'Traceback (most recent call last):',
      '  File "x.py", line 1, in f',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    ]);
  });

  it('reads the step table that follows a [main] header unprefixed', () => {
    const step = events.find((e) => e.type === 'step');
    expect(step && step.type === 'step' && step.stats).toEqual({
      'rollout/reward': 0.25,
      'ppo_actor/update/grad_norm': NaN,
      'timeperf/train_step': 120,
      'ppo_actor/n_tokens': 12881000,
      'a/b': -0.0003,
      c: 7,
      d: Infinity,
    });
    expect(Object.keys(step && step.type === 'step' ? step.stats : {})).toEqual(STATS.map(([k]) => k));
  });

  it('gives worker warnings a kind and a source', () => {
    expect(events.find((e) => e.type === 'warning')).toMatchObject({ kind: 'omniboxes-alloc', source: 'rollout' });
  });
});

describe('Ray-forwarded lines and bare tracebacks on the controller stdout', () => {
  const RAY = '(RayRPCServer pid=48213, ip=10.0.0.9) ';
  const log = [
    RAY + rec(T, 'IOStruct', 'INFO', MEM),
    RAY + 'Traceback (most recent call last):',
    rec(T, 'IOStruct', 'INFO', MEM),
    RAY + '  File "/opt/x.py", line 3, in launch',
    RAY + 'TimeoutError: server launch failed',
    RAY + 'some later print',
    '(RayRPCServer pid=7, ip=10.0.0.8) ' +
      rec(T, 'RayScheduler', 'CRITICAL', "Worker 'actor/3' failed with exit code 1"),
    'Traceback (most recent call last):',
    '  File "train.py", line 9, in <module>',
    'ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.',
    'Exiting.',
    '',
  ].join('\n');
  const events = parseAll(log);

  it("reads Ray worker memory as source ray; a worker phase unprefixed on the controller stdout is not the controller's", () => {
    expect(events.filter((e) => e.type === 'memory').map((e) => e.type === 'memory' && e.source)).toEqual([
      'ray',
      'worker',
    ]);
  });

  it('reports each traceback once, with its kind, source and exception line', () => {
    const errors = events.filter((e) => e.type === 'error');
    expect(errors.map((e) => [e.kind, e.source, e.message, e.time])).toEqual([
      ['sglang-launch', 'ray', 'TimeoutError: server launch failed', null],
      [
        'ray-actor-died',
        'main',
        'ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.',
        null,
      ],
      ['worker-failed', 'ray', "Worker 'actor/3' failed with exit code 1", '2026-06-01T10:00:00.000'],
    ]);
  });
});

describe('robustness', () => {
  it('holds an unterminated table and reports it as incomplete at the end', () => {
    const full = stepRecords(T, 1, STATS);
    const cut = full.slice(0, full.length - 300);
    const events = parseAll(cut);
    expect(events.filter((e) => e.type === 'step')).toHaveLength(0);
    expect(events.filter((e) => e.type === 'warning')).toEqual([
      expect.objectContaining({ kind: 'incomplete-record' }),
    ]);
  });

  it('emits the step once the rest of the table arrives', async () => {
    const { TrainerLogParser } = await import('../../src/trainer-log/index.js');
    const full = new TextEncoder().encode(stepRecords(T, 1, STATS) + '\n');
    const p = new TrainerLogParser();
    expect(p.push(full.subarray(0, full.length - 100))).toEqual([]);
    expect(p.push(full.subarray(full.length - 100)).map((e) => e.type)).toEqual(['step']);
    expect(p.end()).toEqual([]);
  });

  it('cuts a 10 MB line, says so, and keeps parsing', () => {
    const big = 'x'.repeat(10 << 20);
    const events = parseAll(`${rec(T, 'A', 'INFO', big)}\n${rec(T, 'RLTrainer', 'INFO', 'Training completes! x')}\n`, [
      3 << 20,
      3 << 20,
      3 << 20,
    ]);
    expect(events.map((e) => (e.type === 'warning' ? e.kind : e.type))).toEqual(['record-truncated', 'finished']);
  });

  it('caps an endless traceback', () => {
    const lines = ['Traceback (most recent call last):'];
    for (let i = 0; i < 100_000; i++) lines.push(`  File "f${i}.py", line ${i}, in g`);
    const events = parseAll(lines.join('\n') + '\n');
    expect(events.map((e) => (e.type === 'warning' ? e.kind : e.type))).toEqual(['error', 'record-truncated']);
    const err = events[0];
    expect(err.type === 'error' && err.detail.length).toBeLessThanOrEqual(1 << 20);
  });

  it('resets partial state on reset()', async () => {
    const { TrainerLogParser } = await import('../../src/trainer-log/index.js');
    const p = new TrainerLogParser();
    p.push(new TextEncoder().encode(stepRecords(T, 1, STATS).slice(0, 500)));
    p.reset();
    expect(p.end()).toEqual([]);
  });
});

describe('flushIdle', () => {
  it('emits a crash traceback that nothing follows, once', async () => {
    const { TrainerLogParser } = await import('../../src/trainer-log/index.js');
    const p = new TrainerLogParser();
    const crash = [
      rec(T, 'RLTrainer', 'ERROR', 'Training step failed'),
      'Traceback (most recent call last):',
      '  File "a.py", line 1, in f',
      'torch.OutOfMemoryError: CUDA out of memory.',
      '',
    ].join('\n');
    expect(p.push(new TextEncoder().encode(crash))).toEqual([]);
    const flushed = p.flushIdle();
    expect(flushed).toHaveLength(1);
    expect(flushed[0]).toMatchObject({ type: 'error', kind: 'oom', message: 'Training step failed' });
    expect(p.flushIdle()).toEqual([]);
    expect(p.end()).toEqual([]);
  });
});

describe('Ray prefixes without an actor name or pid', () => {
  it('keeps (raylet, ip=…) and (pid=…) lines out of the controller traceback', () => {
    const log = [
      rec(T, 'RLTrainer', 'ERROR', 'Training step failed'),
      'Traceback (most recent call last):',
      '(raylet, ip=10.0.0.9) A worker died or was killed while executing a task',
      '(pid=77) some worker print',
      'RuntimeError: boom',
      '',
    ].join('\n');
    const err = parseAll(log).find((e) => e.type === 'error');
    expect(err && err.type === 'error' && err.detail).toBe('Traceback (most recent call last):\nRuntimeError: boom');
  });
});

describe('steps over several tables and repeated steps', () => {
  const ESC = '\x1b';
  const tableRec = (stats: [string, string][]) =>
    `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[92m${T} StatsLogger INFO: \n${table(stats)}${ESC}[0m`;

  it('merges the tables of `Stats (1/2)` and `Stats (2/2)` into one step', () => {
    const log = [
      rec(T, 'StatsLogger', 'INFO', 'Epoch 1/1 Step 3/9 Train step 3/9 done.'),
      rec(T, 'StatsLogger', 'INFO', 'Stats (1/2):'),
      tableRec([
        ['a', '1.0000e+00'],
        ['b', 'nan'],
      ]),
      rec(T, 'StatsLogger', 'INFO', 'Stats (2/2):'),
      tableRec([['c', '-2.5000e-01']]),
      '',
    ].join('\n');
    const steps = parseAll(log).filter((e) => e.type === 'step');
    expect(steps).toHaveLength(1);
    expect(steps[0].type === 'step' && steps[0].stats).toEqual({ a: 1, b: NaN, c: -0.25 });
  });

  it('reports a step again after a resume, every time it is logged', () => {
    const log = [
      stepRecords(T, 7, [['x', '1.0000e+00']]),
      rec(T, 'Recover', 'INFO', 'Recovering from StepInfo(epoch=0, epoch_step=6, global_step=6, steps_per_epoch=10).'),
      stepRecords(T, 7, [['x', '2.0000e+00']]),
      '',
    ].join('\n');
    const events = parseAll(log);
    expect(events.map((e) => (e.type === 'step' ? `step${e.globalStep}:${e.stats.x}` : e.type))).toEqual([
      'step7:1',
      'resume',
      'step7:2',
    ]);
  });
});
