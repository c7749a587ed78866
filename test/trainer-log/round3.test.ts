// Shapes of real AReaL logs read wrong before issue #27, each written by round3/make.py through
// CPython's own traceback, logging and runpy code with AReaL's coloured formatter: a worker log
// quoted by WorkerFailedError, a crash after a one-line WARNING, multi-line warnings without
// colour, a file of tracebacks only, the local launcher's end, a failure printed twice.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  TrainerLogParser,
  type ErrorEvent,
  type TrainerEvent,
  type WarningEvent,
} from '../../src/trainer-log/index.js';
import { parseAll } from './helpers.js';

const DIR = new URL('./round3/', import.meta.url).pathname;
const read = (name: string): string => readFileSync(DIR + name, 'utf8');
/** The file as it reads with its colour removed (sed, a paste into a ticket, LOG_FORMAT_PLAIN). */
const plain = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, '');
const errors = (evs: TrainerEvent[]) => evs.filter((e): e is ErrorEvent => e.type === 'error');

/** The events of a log fed a line at a time, as a follower reads a live log. */
function lineByLine(text: string): TrainerEvent[] {
  const p = new TrainerLogParser();
  const out: TrainerEvent[] = [];
  for (const l of text.split(/(?<=\n)/)) out.push(...p.push(Buffer.from(l)));
  return [...out, ...p.end()];
}

/** Each way a file is met: whole, line by line, without its colour. */
const readings = (text: string) => [parseAll(text), lineByLine(text), parseAll(plain(text))];

describe('a worker log quoted by WorkerFailedError', () => {
  it('is the detail of the errors that quote it: no records of its own, kind and cause from its last lines', () => {
    for (const evs of readings(read('worker-failed-old-attempts.log'))) {
      const failed = "Worker 'rollout/0' failed with exit code 1";
      const cause =
        "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 23456): address already in use";
      // Logged, then printed uncaught: two errors of this run, dated by the controller's record.
      expect(errors(evs).map((e) => [e.message, e.kind, e.time, e.cause])).toEqual([
        [`Training failed with exception: ${failed}`, 'worker-failed', '2026-04-13T09:00:02.250', cause],
        [`areal.infra.scheduler.exceptions.WorkerFailedError: ${failed}`, 'worker-failed', null, cause],
      ]);
      // The older attempt's SGLang failure is in the quote, not an error of its own.
      expect(errors(evs)[0].detail).toContain('TimeoutError: server launch failed');
      expect(evs.filter((e) => e.time !== null && e.time < '2026-04-13T08:58')).toEqual([]);
    }
  });

  it("ends at the writer's next record when the tail is shorter than 50 lines", () => {
    const text = read('worker-failed-old-attempts.log');
    // The same errors quoting only the tail's last 10 lines (a young log).
    const lines = text.split('\n');
    const short = lines.filter((_, i) => !lines.slice(Math.max(0, i - 40), i).includes('Stderr output:')).join('\n');
    for (const evs of readings(short)) {
      expect(errors(evs).map((e) => e.kind)).toEqual(['worker-failed', 'worker-failed']);
      // `Workers deleted` and the end record are the controller's own again: the uncaught
      // traceback after them is the second error, and no `finished` (a crash).
      expect(evs.map((e) => e.type)).not.toContain('finished');
    }
  });
});

describe('a traceback after a WARNING is decided by its first frame', () => {
  it("an uncaught crash of a `python -m` process (runpy's frames first) is an error, not the warning's exc_info", () => {
    for (const evs of readings(read('warning-then-runpy.log'))) {
      expect(evs.filter((e) => e.type === 'warning').map((e) => [e.message, 'detail' in e])).toEqual([
        ['sglang.enable_metrics is deprecated, use sglang.metrics', false],
      ]);
      expect(errors(evs).map((e) => e.message)).toEqual([
        'RuntimeError: nvidia-smi error: Failed to initialize NVML: Driver/library version mismatch',
      ]);
      expect(errors(evs)[0].detail.split('\n')[1]).toBe('  File "<frozen runpy>", line 198, in _run_module_as_main');
    }
  });

  it('multi-line warnings with exc_info stay warnings with or without colour; the crash after them is the one error', () => {
    for (const evs of readings(read('multiline-warnings.log'))) {
      const warned = evs.filter((e): e is WarningEvent => e.type === 'warning' && e.kind === 'other');
      expect(warned.map((e) => e.message)).toEqual([
        'Reward computation failed for task math_0:',
        'Reward computation failed for task math_1:',
      ]);
      for (const w of warned) {
        const detail = w.detail ?? '';
        expect(detail).toMatch(/^prompt: solve it\nresponse: 12\nTraceback/);
        expect(detail).toContain('ValueError: No gold targets found');
      }
      expect(errors(evs).map((e) => e.message)).toEqual(['IndexError: list index out of range']);
    }
  });
});

describe("AReaL's local launcher", () => {
  it('ends a completed run with JobException(JobState.COMPLETED): a completed run, no error', () => {
    for (const evs of readings(read('launcher-completed.log'))) {
      expect(errors(evs)).toEqual([]);
      expect(evs.filter((e) => e.type === 'finished')).toEqual([{ type: 'finished', time: '2026-04-13T10:00:01.000' }]);
    }
    // The same end after a crash of the trainer: the trainer's traceback is the error, no finished.
    const crashed = read('launcher-completed.log').replace(
      /(Training completes!.*\n)/,
      '$1Traceback (most recent call last):\n  File "/opt/areal/train.py", line 9, in main\nRuntimeError: boom\n',
    );
    const evs = parseAll(crashed);
    expect(errors(evs).map((e) => e.message)).toEqual(['RuntimeError: boom']);
    expect(evs.map((e) => e.type)).not.toContain('finished');
  });
});

describe('`docker logs -t` captures (an RFC 3339 time before every line)', () => {
  const stamped = (text: string): string =>
    text
      .split('\n')
      .map((l, i) => (l === '' && i > 0 ? l : `2026-04-13T09:00:${String(i % 60).padStart(2, '0')}.123456789Z ${l}`))
      .join('\n');
  const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/', import.meta.url).pathname;

  it.each([
    ['run-a/merged.log', RUN_A + 'merged.log'],
    ['run-a/stdout.log', RUN_A + 'stdout.log'],
    ['round3/worker-failed-old-attempts.log', DIR + 'worker-failed-old-attempts.log'],
    ['round3/multiline-warnings.log', DIR + 'multiline-warnings.log'],
  ])('%s reads as without the stamps', (_name, path) => {
    const text = readFileSync(path, 'utf8');
    const want = parseAll(text);
    expect(want.length).toBeGreaterThan(2);
    expect(parseAll(stamped(text))).toEqual(want);
  });
});

describe('one failure told twice', () => {
  it("an engine failure printed (print_exc) and then logged with format_exc() is one error; webgym's printed [TRAJ_NONE] copy is none", () => {
    for (const evs of readings(read('printed-twice.log'))) {
      expect(errors(evs).map((e) => [e.message, e.time])).toEqual([
        [
          "Engine method 'rollout_batch' failed: CUDA error: an illegal memory access was encountered",
          '2026-04-13T11:00:00.000',
        ],
      ]);
      const warned = evs.filter((e): e is WarningEvent => e.type === 'warning');
      expect(warned.map((e) => e.message.slice(0, 26))).toEqual([
        '[TRAJ_NONE] task=webgym_0 ',
        '[TRAJ_NONE] task=webgym_1 ',
      ]);
    }
  });

  it('a different traceback printed before a logged error stays an error of its own, in file order', () => {
    const text = read('printed-twice.log').replace(
      /^RuntimeError: CUDA error: an illegal memory access was encountered$/m,
      'ValueError: an earlier failure',
    );
    expect(errors(parseAll(text)).map((e) => e.message)).toEqual([
      'ValueError: an earlier failure',
      "Engine method 'rollout_batch' failed: CUDA error: an illegal memory access was encountered",
    ]);
  });
});

describe("SGLang's own lines", () => {
  it('carry their time: the OOM its scheduler logs is dated, and comes before what it causes (file order)', () => {
    for (const evs of readings(read('sglang-oom.log'))) {
      const kinds = evs.map((e) => [e.type, e.time]);
      expect(kinds).toEqual([
        ['error', '2026-04-13T12:00:07.000'],
        ['warning', '2026-04-13T12:00:09.500'],
      ]);
      expect(errors(evs)[0]).toMatchObject({ kind: 'oom', source: 'rollout' });
    }
  });
});

describe('a complete record is finished by time too', () => {
  it("a quiet worker's error is told when records 2 s newer come, not at its writer's next line", () => {
    const p = new TrainerLogParser();
    const lines = read('sglang-oom.log').split(/(?<=\n)/);
    // Up to the last rollout line: the traceback could still go on (a chained one).
    const before = lines.slice(0, -1).flatMap((l) => p.push(Buffer.from(l)));
    expect(before).toEqual([]);
    // The controller's record 2.5 s after the OOM: the OOM is told now, before that record's events.
    const now = p.push(Buffer.from(lines[lines.length - 1]));
    expect(now.map((e) => [e.type, e.time])).toEqual([['error', '2026-04-13T12:00:07.000']]);
  });
});
