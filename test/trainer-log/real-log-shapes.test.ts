// Shapes real AReaL logs have that the parser once misread (issue #15): chained, back-to-back and
// mid-line tracebacks, WARNINGs logged with exc_info, merged.log tags of 10+ characters, worker
// memory, `[rank0]: `, `prepare_batch/<role>` with N/A, the pre-0.5.2 header.
import { describe, expect, it } from 'vitest';
import type { ErrorEvent, TrainerEvent, WarningEvent } from '../../src/trainer-log/index.js';
import { parseAll, rec } from './helpers.js';

const T = '20260412-23:28:42.123';
const TIME = '2026-04-12T23:28:42.123';
const errors = (evs: TrainerEvent[]) => evs.filter((e): e is ErrorEvent => e.type === 'error');
const warnings = (evs: TrainerEvent[]) => evs.filter((e): e is WarningEvent => e.type === 'warning');

const CHAINED = [
  'Traceback (most recent call last):',
  '  File "/opt/areal/infra/rpc/client.py", line 88, in call',
  '    raise EngineCallError(msg)',
  "areal.infra.rpc.exceptions.EngineCallError: call 'evaluate' on eval-rollout/0 failed",
  '',
  'During handling of the above exception, another exception occurred:',
  '',
  'Traceback (most recent call last):',
  '  File "/opt/areal/infra/scheduler/local.py", line 301, in check',
  '    raise WorkerFailedError(name, code)',
  "areal.infra.scheduler.exceptions.WorkerFailedError: Worker 'eval-rollout/0' failed with exit code 0",
];

describe('tracebacks', () => {
  it('a chained traceback is one error titled by its last exception line, kind from the whole chain', () => {
    const evs = parseAll([...CHAINED, 'ordinary output', ''].join('\n'));
    expect(errors(evs)).toEqual([
      {
        type: 'error',
        message: "areal.infra.scheduler.exceptions.WorkerFailedError: Worker 'eval-rollout/0' failed with exit code 0",
        detail: CHAINED.join('\n'),
        kind: 'worker-failed',
        time: null,
        source: 'main',
      },
    ]);
  });

  it('`The above exception was the direct cause` chains too', () => {
    const lines = CHAINED.map((l) =>
      l.startsWith('During') ? 'The above exception was the direct cause of the following exception:' : l,
    );
    expect(errors(parseAll(lines.join('\n') + '\n'))).toHaveLength(1);
  });

  it('back-to-back tracebacks without a chain line are separate errors, each with its own exception line', () => {
    const one = ['Traceback (most recent call last):', '  File "a.py", line 1, in f', 'ValueError: first'];
    const two = [
      'Traceback (most recent call last):',
      '  File "b.py", line 2, in g',
      'torch.OutOfMemoryError: CUDA out of memory.',
    ];
    const evs = parseAll([...one, ...two, ''].join('\n'));
    expect(errors(evs).map((e) => [e.message, e.kind, e.detail])).toEqual([
      ['ValueError: first', 'other', one.join('\n')],
      ['torch.OutOfMemoryError: CUDA out of memory.', 'oom', two.join('\n')],
    ]);
  });

  it("a traceback after a logged error's own traceback is a separate error", () => {
    const evs = parseAll(
      [
        rec(T, 'RLTrainer', 'ERROR', 'Training failed with exception: boom'),
        'Traceback (most recent call last):',
        '  File "a.py", line 1, in f',
        'RuntimeError: boom',
        'Traceback (most recent call last):',
        '  File "train.py", line 9, in <module>',
        'RuntimeError: boom',
        rec(T, 'RolloutController', 'INFO', 'next'),
        '',
      ].join('\n'),
    );
    expect(errors(evs).map((e) => e.message)).toEqual(['Training failed with exception: boom', 'RuntimeError: boom']);
  });

  it("a traceback that starts mid-line (SGLang) is an error with the worker's source", () => {
    const sglang = [
      '[2026-04-12 23:28:42] Scheduler hit an exception: Traceback (most recent call last):',
      '  File "/usr/lib/python3/site-packages/sglang/srt/managers/scheduler.py", line 2712, in run_scheduler_process',
      '    scheduler.event_loop_overlap()',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.92 GiB. GPU 0 has a total capacity of 79.11 GiB',
      '',
      '[2026-04-12 23:28:43] Received sigquit from a child process. It usually means the child failed.',
    ];
    const merged = sglang.map((l) => '[rollout] ' + l).join('\n') + '\n';
    expect(errors(parseAll(merged))).toEqual([
      expect.objectContaining({
        kind: 'oom',
        source: 'rollout',
        time: '2026-04-12T23:28:42.000',
        message:
          'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.92 GiB. GPU 0 has a total capacity of 79.11 GiB',
      }),
    ]);
    const ray = sglang.map((l) => '(SGLangServer pid=9011, ip=10.0.0.7) ' + l).join('\n') + '\n';
    expect(errors(parseAll(ray))).toEqual([expect.objectContaining({ kind: 'oom', source: 'ray' })]);
  });

  it('a Ray RayTaskError keeps the remote exception: the line printed last names what failed', () => {
    const evs = parseAll(
      [
        'Traceback (most recent call last):',
        '  File "train.py", line 9, in <module>',
        'ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayRPCServer.call() (pid=48213, ip=10.0.0.9)',
        '  File "/opt/areal/infra/rpc/rpc_server.py", line 214, in call_engine',
        '    result = method(*args, **kwargs)',
        'torch.OutOfMemoryError: CUDA out of memory.',
        'Exiting.',
        '',
      ].join('\n'),
    );
    expect(errors(evs).map((e) => [e.message, e.kind])).toEqual([
      ['torch.OutOfMemoryError: CUDA out of memory.', 'oom'],
    ]);
  });

  it('`[rank0]: ` before a traceback or an error record is not part of it', () => {
    const evs = parseAll(
      [
        '[rank0]: Traceback (most recent call last):',
        '[rank0]:   File "/opt/areal/engine/fsdp_engine.py", line 731, in train_batch',
        '[rank0]:     loss.backward()',
        '[rank0]: torch.OutOfMemoryError: CUDA out of memory.',
        `[rank0]: ${rec(T, '[FSDPEngine Rank 0]', 'ERROR', 'Exception in train_batch')}`,
        rec(T, 'RolloutController', 'INFO', 'next'),
        '',
      ].join('\n'),
    );
    expect(errors(evs).map((e) => [e.message, e.kind, e.detail.split('\n')[1]])).toEqual([
      [
        'torch.OutOfMemoryError: CUDA out of memory.',
        'oom',
        '  File "/opt/areal/engine/fsdp_engine.py", line 731, in train_batch',
      ],
      ['Exception in train_batch', 'other', undefined],
    ]);
  });

  it('no error is titled by its traceback header, even one cut before its exception line', () => {
    const evs = parseAll('Traceback (most recent call last):\n  File "a.py", line 1, in f\n');
    expect(errors(evs)[0].message).toBe(
      'a traceback without its exception line (last line: File "a.py", line 1, in f)',
    );
  });
});

describe('a WARNING logged with exc_info', () => {
  // AReaL's reward code: a multi-line message (colorlog's reset ends it), then the traceback.
  const ESC = '\x1b';
  const warning = (prefix: string) =>
    [
      `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[33m${T} RewardUtils WARNING: Reward computation failed for task webgym_17:`,
      'prompt: click the "Checkout" button',
      `response: <answer>click(12, 40)</answer>${ESC}[0m`,
      'Traceback (most recent call last):',
      '  File "/opt/areal/reward/utils.py", line 44, in compute',
      '    return fn(*args)',
      "KeyError: 'reward'",
    ].map((l) => prefix + l);
  const detail =
    'prompt: click the "Checkout" button\nresponse: <answer>click(12, 40)</answer>\nTraceback (most recent call last):\n' +
    '  File "/opt/areal/reward/utils.py", line 44, in compute\n    return fn(*args)\nKeyError: \'reward\'';

  it.each([
    ['the controller', '', 'main'],
    ['a worker in merged.log', '[rollout] ', 'rollout'],
    ['a Ray worker', '(RayRPCServer pid=1, ip=10.0.0.2) ', 'ray'],
  ])('from %s: one warning with its traceback as detail, no error', (_who, prefix, source) => {
    const evs = parseAll([...warning(prefix), prefix + rec(T, 'RewardUtils', 'INFO', 'next'), ''].join('\n'));
    expect(errors(evs)).toEqual([]);
    expect(warnings(evs)).toEqual([
      {
        type: 'warning',
        message: 'Reward computation failed for task webgym_17:',
        kind: 'other',
        time: TIME,
        source,
        detail,
      },
    ]);
  });

  it("a one-line warning with Ray's dedup note after its reset takes no further lines", () => {
    const ray = '(RayRPCServer pid=1, ip=10.0.0.2) ';
    const evs = parseAll(
      [
        ray +
          rec(T, 'WebGymWorkflow', 'WARNING', '[EPISODE_TIMEOUT] task=webgym_3 — terminating episode') +
          ' [repeated 7x across cluster]',
        ray + 'TaskMonitor dashboard running at http://0.0.0.0:5003',
        ray + 'Traceback (most recent call last):',
        ray + '  File "a.py", line 1, in f',
        ray + 'RuntimeError: later crash',
        '',
      ].join('\n'),
    );
    expect(warnings(evs).map((w) => [w.kind, w.detail])).toEqual([['episode-timeout', undefined]]);
    expect(errors(evs).map((e) => e.message)).toEqual(['RuntimeError: later crash']);
  });

  it('a traceback that comes later, after other output, is still an error', () => {
    const evs = parseAll(
      [
        rec(T, 'W', 'WARNING', 'a one-line warning'),
        'some print',
        'Traceback (most recent call last):',
        '  File "a.py", line 1, in f',
        'RuntimeError: real crash',
        '',
      ].join('\n'),
    );
    expect(warnings(evs).map((w) => [w.message, w.detail])).toEqual([['a one-line warning', undefined]]);
    expect(errors(evs).map((e) => e.message)).toEqual(['RuntimeError: real crash']);
  });
});

describe('merged.log tags of 10 characters or more', () => {
  it("keep the line's own text exactly (ljust(10) adds no space)", () => {
    const tb = [
      'Traceback (most recent call last):',
      '  File "/opt/x.py", line 3, in run',
      '    do()',
      'ValueError: x',
    ];
    const log = [
      `[eval-rollout]${rec(T, 'Worker', 'ERROR', 'eval failed')}`,
      ...tb.map((l) => '[eval-rollout]' + l),
      `[test-rollout]${rec(T, 'Worker', 'INFO', 'Memory-Usage after onload model: memory allocated (GB): 1.00, memory reserved (GB): 2.00, device memory used/total (GB): 3.00/79.11')}`,
      `[eval-rollout]${rec(T, 'Worker', 'INFO', 'next')}`,
      '',
    ].join('\n');
    const evs = parseAll(log);
    expect(errors(evs)).toEqual([
      expect.objectContaining({ message: 'eval failed', source: 'eval-rollout', detail: tb.join('\n') }),
    ]);
    expect(evs.filter((e) => e.type === 'memory')).toEqual([
      expect.objectContaining({ phase: 'after onload model', source: 'test-rollout' }),
    ]);
  });
});

describe('worker memory, batches, headers', () => {
  const MEM = (phase: string) =>
    `Memory-Usage ${phase}: memory allocated (GB): 16.42, memory reserved (GB): 16.90, device memory used/total (GB): 20.70/79.11`;

  it('worker Memory-Usage records are memory events with their source, in log order', () => {
    const log = [
      `[actor]   ${rec(T, 'IOStruct', 'INFO', MEM('after model creation/loading'))}`,
      `[main]    ${rec(T, 'IOStruct', 'INFO', MEM('recompute logp'))}`,
      `(RayRPCServer pid=4, ip=10.0.0.4) ${rec(T, 'IOStruct', 'INFO', MEM('after onload model'))}`,
      `(RayRPCServer pid=4, ip=10.0.0.4) ${rec(T, 'IOStruct', 'INFO', MEM('after onload model'))} [repeated 7x across cluster]`,
      '',
    ].join('\n');
    expect(parseAll(log).map((e) => e.type === 'memory' && `${e.source}:${e.phase}`)).toEqual([
      'actor:after model creation/loading',
      'main:recompute logp',
      'ray:after onload model',
      'ray:after onload model',
    ]);
  });

  it("a worker's memory tee'd unprefixed into a local-scheduler controller stdout is not the controller's", () => {
    const evs = parseAll(
      [
        rec(T, 'IOStruct', 'INFO', MEM('after model creation/loading')),
        rec(T, 'IOStruct', 'INFO', MEM('ppo update')),
        '',
      ].join('\n'),
    );
    expect(evs.map((e) => e.type === 'memory' && `${e.source}:${e.phase}`)).toEqual([
      'worker:after model creation/loading',
      'main:ppo update',
    ]);
    // A controller phase that starts with `after` (an SFT trainer's) is still the controller's.
    const sft = parseAll(rec(T, 'IOStruct', 'INFO', MEM('after train step')) + '\n');
    expect(sft.map((e) => e.type === 'memory' && e.source)).toEqual(['main']);
  });

  it('prepare_batch/<role> gives the role; n_episodes=N/A is null', () => {
    const evs = parseAll(
      [
        rec(
          T,
          'RolloutController',
          'INFO',
          'prepare_batch/eval-rollout: pending_before=0, consumed=64, wait=31.0s, localize+concat=0.4s, total=31.4s, batch_shape=[64, 9000], n_episodes=N/A, mmi_len=64',
        ),
        rec(
          T,
          'RolloutController',
          'INFO',
          'prepare_batch/rollout: pending_before=2, consumed=16, wait=612.3s, localize+concat=4.1s, total=616.4s, batch_shape=[1093, 15211], n_episodes=128, mmi_len=1093',
        ),
        '',
      ].join('\n'),
    );
    expect(evs).toEqual([
      { type: 'batch', waitS: 31, totalS: 31.4, episodes: null, time: TIME, role: 'eval-rollout' },
      { type: 'batch', waitS: 612.3, totalS: 616.4, episodes: 128, time: TIME, role: 'rollout' },
    ]);
  });

  it('reads the pre-0.5.2 header (no `(AReaL) `)', () => {
    const evs = parseAll(
      [
        `${T} Recover WARNING: Resume info not found at /x. This should not be a resumed experiment!`,
        `\x1b[37m${T} StatsLogger INFO: Training completes! Total time elapsed 3.00.\x1b[0m`,
        '',
      ].join('\n'),
    );
    expect(evs).toEqual([
      { type: 'start', time: TIME },
      { type: 'finished', time: TIME },
    ]);
  });
});
