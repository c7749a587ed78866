// Tracebacks as CPython 3.11 prints them (carets, exception groups, `raise … from`, a bare
// KeyboardInterrupt), Ray's RayTaskError/ActorDiedError text, a progress bar redrawn with `\r`
// before a record, and the trainer's exit paths with close()'s teardown records after the end
// record: python-shapes/*.log, written by python-shapes/make.py through Python's own traceback
// and logging code with AReaL's formatter. Each error is titled by the exception line Python
// prints last, a crash is never finished, and the fast paths agree (fast-paths.test.ts).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { TrainerLogParser, type TrainerEvent } from '../../src/trainer-log/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import { parseAll } from './helpers.js';

const DIR = new URL('./python-shapes/', import.meta.url).pathname;
const read = (name: string): string => readFileSync(DIR + name, 'utf8');
const errors = (evs: TrainerEvent[]) =>
  evs.flatMap((e) => (e.type === 'error' ? [{ message: e.message, kind: e.kind, source: e.source }] : []));

/** The events of a log fed a line at a time, as a follower reads a live log. */
function lineByLine(text: string): TrainerEvent[] {
  const p = new TrainerLogParser();
  const out: TrainerEvent[] = [];
  for (const l of text.split(/(?<=\n)/)) out.push(...p.push(Buffer.from(l)));
  return [...out, ...p.end()];
}

describe('logs written by CPython and AReaL formatting', () => {
  it('AsyncWebRL: the end record, close()’s teardown records, then the traceback: a failure', () => {
    for (const evs of [parseAll(read('asyncwebrl-teardown.log')), lineByLine(read('asyncwebrl-teardown.log'))]) {
      expect(evs.map((e) => e.type)).not.toContain('finished');
      // A 3.11 traceback's `~~~~^^^` lines are the frames' own: the exception line titles it.
      expect(errors(evs)).toEqual([{ message: 'IndexError: list index out of range', kind: 'other', source: 'main' }]);
      const store = new MetricsStore();
      for (const e of evs) store.ingest(e);
      expect(store.finished).toBe(false);
    }
  });

  it('an uncaught exception group is one error, titled by the last exception line it prints', () => {
    const evs = parseAll(read('exception-group.log'));
    expect(errors(evs)).toEqual([
      { message: 'ValueError: reward server 2 unreachable', kind: 'other', source: 'main' },
    ]);
    // The line after the group (wandb's) is not part of it.
    const detail = (evs.find((e) => e.type === 'error') as { detail: string }).detail;
    expect(detail.split('\n')[0]).toBe('  + Exception Group Traceback (most recent call last):');
    expect(detail).toContain('ValueError: reward server 1 unreachable');
    expect(detail).not.toContain('wandb');
  });

  it('a logged exception group (nested, with a chain inside) stays the logged error’s detail', () => {
    const evs = parseAll(read('exception-group-logged.log'));
    expect(errors(evs)).toEqual([{ message: 'rollout failed', kind: 'worker-failed', source: 'main' }]);
  });

  it('a worker log quoted in WorkerFailedError ("Stderr output:") is its detail, not records of the controller', () => {
    for (const evs of [parseAll(read('worker-failed-stderr.log')), lineByLine(read('worker-failed-stderr.log'))]) {
      // Logged (upstream's `Training failed with exception`), then uncaught: two errors, and the
      // worker's own records in the quote (its memory, its ERROR) are no events of the controller.
      expect(errors(evs)).toEqual([
        {
          message: "Training failed with exception: Worker 'actor/0' failed with exit code 1",
          kind: 'oom',
          source: 'main',
        },
        {
          message: "areal.infra.scheduler.exceptions.WorkerFailedError: Worker 'actor/0' failed with exit code 1",
          kind: 'oom',
          source: 'main',
        },
      ]);
      expect(evs.filter((e) => e.type === 'memory')).toEqual([]);
      expect(evs.map((e) => e.type)).not.toContain('finished');
      const logged = evs.find((e) => e.type === 'error') as { detail: string };
      expect(logged.detail).toContain('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.92 GiB.');
    }
  });

  it('with NO_COLOR (no reset after a WARNING) the warning is its line, and the crash after it an error', () => {
    const evs = parseAll(read('no-color.log'));
    expect(evs.filter((e) => e.type === 'warning')).toEqual([
      {
        type: 'warning',
        message: 'reward server slow: 12.0 s',
        kind: 'other',
        time: '2026-04-12T23:28:42.250',
        source: 'main',
      },
    ]);
    expect(errors(evs)).toEqual([{ message: 'IndexError: list index out of range', kind: 'other', source: 'main' }]);
  });

  it("a Slurm job ended by its time limit: slurmstepd's line is the error (the trainer writes none)", () => {
    const evs = parseAll(read('slurm-time-limit.log'));
    expect(evs.filter((e) => e.type === 'error')).toEqual([
      expect.objectContaining({
        message: 'slurmstepd: error: *** JOB 4242 ON node01 CANCELLED AT 2026-04-12T23:30:00 DUE TO TIME LIMIT ***',
        time: '2026-04-12T23:30:00.000',
        source: 'main',
      }),
    ]);
    expect(evs.map((e) => e.type)).not.toContain('finished');
  });

  it('KeyboardInterrupt (upstream exit path): two errors, no finished', () => {
    const evs = parseAll(read('keyboard-interrupt.log'));
    expect(evs.map((e) => e.type)).not.toContain('finished');
    expect(errors(evs)).toEqual([
      { message: 'Training failed with exception:', kind: 'other', source: 'main' },
      { message: 'KeyboardInterrupt', kind: 'other', source: 'main' },
    ]);
  });

  it('a record written after a progress bar’s `\\r` on the same line is read', () => {
    const evs = parseAll(read('progress-bar.log'));
    expect(errors(evs)).toEqual([
      { message: 'Training failed with exception: list index out of range', kind: 'other', source: 'main' },
    ]);
    expect(evs.map((e) => e.type)).not.toContain('finished');
  });

  it('a RayTaskError whose remote traceback is a chain is titled by the remote exception Python prints last', () => {
    expect(errors(parseAll(read('ray-task-error-chain.log')))).toEqual([
      { message: "RuntimeError: RPC 'ppo_update' failed on actor/0", kind: 'other', source: 'main' },
    ]);
  });

  it('ActorDiedError is titled by its exception line, not by the sentence after its fields', () => {
    expect(errors(parseAll(read('ray-actor-died.log')))).toEqual([
      {
        message: 'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.',
        kind: 'ray-actor-died',
        source: 'main',
      },
    ]);
  });
});
