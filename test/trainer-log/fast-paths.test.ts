// The parser's fast paths (table lines read on their bytes, workers' routine lines and known
// header forms recognised without stripping, remembered key layouts and stats shapes, the JSON
// Lines writer) are provably equal to its general path: the parser with them turned off
// (fastPaths: false) gives the same events, and the same JSON bytes, on every fixture and on
// generated logs that mix every kind of line, cut into random chunks.
import { describe, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { SHARED } from '../harness/fixtures.js';
import { FAILURES, TRAINERS, exitLogs } from './exit-paths.js';
import { rec, table } from './helpers.js';
import { expectSamePaths } from './same-paths.js';

const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;
const GOLDEN = new URL('./golden/', import.meta.url).pathname;
const PYTHON_SHAPES = new URL('./python-shapes/', import.meta.url).pathname;

let seed = 7;
const rand = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const expectSame = (buf: Uint8Array, name: string): void => {
  expectSamePaths(buf, name, rand);
};

// ---- A generator of logs that mix every kind of line the parser tells apart.

const ESC = '\x1b';
const T = (i: number) =>
  `20260525-12:${String(10 + (i % 50)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}`;
const VALUES = [
  '1.2345e-03',
  '-1.2431e-03',
  'nan',
  'inf',
  '-inf',
  '0',
  '7',
  '1.0000e+00',
  'True',
  '1e400',
  '12',
  '-0.0',
];
const KEYS = [
  'rollout/reward',
  'timeperf/train_step',
  'ppo_actor/update/grad_norm',
  'ppo_actor/n_tokens',
  'staleness/gap/offpolicy_avg',
  'a/é',
  'k"q',
  'x',
];
const PREFIXES = [
  '',
  '',
  '',
  '[main]    ',
  '[actor]   ',
  '[rollout] ',
  '[eval-rollout]',
  '(RayRPCServer pid=48213, ip=10.0.0.9) ',
  '(RayRPCServer pid=7, ip=10.0.0.8) ',
  '(pid=77) ',
  '[rank0]: ',
];
const LOGGERS = ['StatsLogger', 'IOStruct', 'RolloutController', '[FSDPEngine Rank 0]', 'WebGymWorkflow', 'RLTrainer'];
const MESSAGES = [
  'Memory-Usage ppo update: memory allocated (GB): 20.99, memory reserved (GB): 69.89, device memory used/total (GB): 73.69/79.11',
  'Memory-Usage after onload model: memory allocated (GB): 16.42, memory reserved (GB): 16.90, device memory used/total (GB): 20.70/79.11',
  'prepare_batch/rollout: pending_before=2, consumed=16, wait=612.3s, localize+concat=4.1s, total=616.4s, batch_shape=[1093, 15211], n_episodes=128, mmi_len=1093',
  'prepare_batch/eval-rollout: pending_before=0, consumed=8, wait=1.5s, total=2.0s, n_episodes=N/A',
  'Training completes! Total time elapsed 12.34.',
  'Training failed with exception: boom',
  'Resume info not found at /x. This should not be a resumed experiment!',
  'Recovering from StepInfo(epoch=0, epoch_step=6, global_step=6, steps_per_epoch=16).',
  '[EPISODE_TIMEOUT] task=webgym_1 — terminating episode',
  'Instance alloc attempt 1/5 failed',
  "Worker 'actor/3' failed with exit code 1",
  'plain message',
];
const LEVELS = ['INFO', 'INFO', 'INFO', 'DEBUG', 'WARNING', 'ERROR', 'CRITICAL'];
const TRACEBACK = ['Traceback (most recent call last):', '  File "a.py", line 1, in f', '    g()'];
const EXCEPTIONS = [
  'torch.OutOfMemoryError: CUDA out of memory.',
  'RuntimeError: boom',
  'ray.exceptions.RayActorError: The actor died',
];

function generatedLog(n: number): Buffer {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = pick(PREFIXES);
    const r = rand();
    if (r < 0.3) {
      lines.push(
        p +
          rec(T(i), pick(LOGGERS), pick(LEVELS), pick(MESSAGES)) +
          (rand() < 0.1 ? ' [repeated 7x across cluster]' : ''),
      );
    } else if (r < 0.45) {
      // A train step: its three records, the table sometimes with escape codes, CRLF or cut short.
      const stats = Array.from({ length: 1 + Math.floor(rand() * 9) }, (_, k): [string, string] => [
        KEYS[k % KEYS.length] + (k >= KEYS.length ? k : ''),
        pick(VALUES),
      ]);
      const pre = rand() < 0.2 ? '[main]    ' : '';
      lines.push(pre + rec(T(i), 'StatsLogger', 'INFO', `Epoch 1/2 Step ${i}/99 Train step ${i}/99 done.`));
      lines.push(pre + rec(T(i), 'StatsLogger', 'INFO', 'Stats (1/1):'));
      lines.push(pre + `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[92m${T(i)} StatsLogger INFO: `);
      let rows = table(stats).split('\n');
      rows[rows.length - 1] += `${ESC}[0m`;
      if (rand() < 0.15) rows = rows.map((l, k) => (k % 2 ? l.replace(' │ ', ` │${ESC}[0m `) : l));
      if (rand() < 0.1) rows = rows.map((l) => l + '\r');
      if (rand() < 0.1) rows = rows.slice(0, Math.max(1, rows.length - 2));
      lines.push(...rows);
    } else if (r < 0.6) {
      for (const l of TRACEBACK) lines.push(p + l);
      if (rand() < 0.3)
        lines.push(
          p + pick(EXCEPTIONS),
          p + '',
          p + 'During handling of the above exception, another exception occurred:',
          p + '',
          ...TRACEBACK.map((l) => p + l),
        );
      if (rand() < 0.2)
        // A worker's log quoted in WorkerFailedError's text: records that are not the writer's.
        lines.push(
          p + "areal.infra.scheduler.exceptions.WorkerFailedError: Worker 'actor/0' failed with exit code 1",
          p + 'Stderr output:',
          ...Array.from({ length: Math.floor(rand() * 60) }, (_, k) =>
            k % 7 === 6 ? p + `${ESC}[0m` : p + rec(T(i), pick(LOGGERS), pick(LEVELS), pick(MESSAGES)),
          ),
        );
      else lines.push(p + pick(EXCEPTIONS));
    } else if (r < 0.68) {
      // A WARNING with a multi-line message and its exc_info traceback.
      lines.push(p + `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[33m${T(i)} RewardUtils WARNING: failed:`);
      lines.push(p + `second line${ESC}[0m`, ...TRACEBACK.map((l) => p + l), p + pick(EXCEPTIONS));
    } else if (r < 0.72) {
      lines.push(
        p + '[2026-04-12 23:28:42] Scheduler hit an exception: Traceback (most recent call last):',
        p + '  File "s.py", line 2, in run',
        p + pick(EXCEPTIONS),
      );
    } else if (r < 0.735) {
      // An exception group (3.11), a Ray chain whose `Traceback` line is `ray::…`, a progress bar.
      lines.push(
        ...[
          '  + Exception Group Traceback (most recent call last):',
          '  |   File "a.py", line 1, in f',
          '  | ExceptionGroup: x (1 sub-exception)',
          '  +-+---------------- 1 ----------------',
          '    | ' + pick(EXCEPTIONS),
          '    +------------------------------------',
        ].map((l) => p + l),
      );
    } else if (r < 0.74) {
      lines.push(
        ...TRACEBACK.map((l) => p + l),
        p + pick(EXCEPTIONS),
        p + 'The above exception was the direct cause of the following exception:',
        p + '',
        p + `${ESC}[36mray::RayRPCServer.call()${ESC}[39m (pid=1, ip=10.0.0.9)`,
        p + '  File "a.py", line 1, in f',
        p + pick(EXCEPTIONS),
      );
    } else if (r < 0.745) {
      lines.push(
        p +
          'Map:  50%|█████     | 1/2\r' +
          (rand() < 0.7 ? rec(T(i), pick(LOGGERS), pick(LEVELS), pick(MESSAGES)) : 'x\r'),
      );
    } else if (r < 0.75) {
      lines.push(
        `[rank3]:[E1129 12:01:02.123456 1234 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1)`,
      );
    } else if (r < 0.78) {
      lines.push(`awrl: attempt ${i}`);
    } else if (r < 0.82) {
      lines.push(p + `${T(i)} IOStruct INFO: ${pick(MESSAGES)}`);
    } else if (r < 0.9) {
      lines.push(p + pick(['some print', '', '  indented', 'wandb: syncing', 'Exiting.', 'x'.repeat(300)]));
    } else {
      // Garbage bytes, escape codes in odd places, a `(AReaL)` look-alike.
      lines.push(
        pick([
          `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m garbage`,
          '\u0000\u0001\u00ff',
          `(AReaL) ${T(i)} INFO`,
          `${p}${ESC}[2m${rec(T(i), 'W', 'INFO', 'dim')}`,
        ]),
      );
    }
  }
  return Buffer.from(lines.join('\n') + (rand() < 0.5 ? '\n' : ''));
}

describe('the fast paths equal the general path', () => {
  it.each([
    ['run-a main.log', RUN_A + 'main.log'],
    ['run-a merged.log', RUN_A + 'merged.log'],
    ['run-a stdout.log', RUN_A + 'stdout.log'],
    ['edge.log', GOLDEN + 'edge.log'],
  ])('on %s', (name, file) => {
    expectSame(readFileSync(file), name);
  });

  it.each(readdirSync(PYTHON_SHAPES).filter((f) => f.endsWith('.log')))('on python-shapes/%s', (name) => {
    expectSame(readFileSync(PYTHON_SHAPES + name), name);
  });

  it('on the exit-path fixtures', () => {
    for (const t of TRAINERS) {
      for (const f of [...FAILURES, null]) {
        for (const s of ['ray', 'local'] as const) {
          const logs = exitLogs(t, f, s);
          for (const [out, text] of Object.entries(logs)) expectSame(Buffer.from(text), `${t}/${f}/${s}/${out}`);
        }
      }
    }
  });

  it('on 40 generated logs mixing every kind of line', () => {
    for (let k = 0; k < 40; k++) expectSame(generatedLog(200 + Math.floor(rand() * 400)), `generated #${k}`);
  });
});
