// A crash is never "finished": logs written through AsyncWebRL's and upstream AReaL's real exit
// paths (exit-paths.ts), in every place they land, give `finished` only for a completed run, and
// each failure once, titled by what failed, with its kind.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrainerLogParser, type TrainerEvent } from '../../src/trainer-log/index.js';
import { MetricsStore } from '../../src/metrics/index.js';
import { FAILURES, TRAINERS, exitLogs, type Failure } from './exit-paths.js';
import { parseAll, rec, stepRecords } from './helpers.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const KIND: Record<Failure, string> = { oom: 'oom', 'ray-actor': 'ray-actor-died', 'worker-failed': 'worker-failed' };
const TITLE: Record<Failure, string> = {
  oom: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.92 GiB.',
  'ray-actor': 'ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.',
  'worker-failed': "areal.infra.scheduler.exceptions.WorkerFailedError: Worker 'actor/0' failed with exit code 1",
};
const types = (evs: TrainerEvent[]) => evs.map((e) => e.type);
const controllerErrors = (evs: TrainerEvent[]) => evs.filter((e) => e.type === 'error' && e.source === 'main');

describe.each(TRAINERS)('%s exit path', (trainer) => {
  it('a completed run is finished, in main.log, merged.log and stdout', () => {
    const logs = exitLogs(trainer, null);
    for (const text of [logs.main, logs.merged, logs.stdout]) {
      const evs = parseAll(text);
      expect(types(evs).filter((t) => t === 'finished' || t === 'error')).toEqual(['finished']);
      expect(types(evs).at(-1)).toBe('finished');
    }
  });

  describe.each(FAILURES)('a run that fails (%s)', (failure) => {
    const logs = exitLogs(trainer, failure);

    it('is not finished where the failure is in the log (stdout; upstream: every log)', () => {
      const where = trainer === 'upstream' ? [logs.main, logs.merged, logs.stdout] : [logs.stdout];
      for (const text of where) expect(types(parseAll(text))).not.toContain('finished');
    });

    it('the controller stdout holds each failure of the controller, titled by what failed', () => {
      const errs = controllerErrors(parseAll(logs.stdout));
      // Upstream logs it, then Python prints it again uncaught; AsyncWebRL only raises it.
      expect(errs).toHaveLength(trainer === 'upstream' ? 2 : 1);
      const uncaught = errs[errs.length - 1];
      expect(uncaught.type === 'error' && uncaught.message.startsWith(TITLE[failure])).toBe(true);
      for (const e of errs) expect(e).toMatchObject({ kind: KIND[failure] });
      for (const e of errs) expect(e.type === 'error' && e.message).not.toMatch(/^Traceback/);
      if (trainer === 'upstream')
        expect(errs[0]).toMatchObject({ message: expect.stringMatching(/^Training failed with exception: /) });
    });

    it('a streaming parser holds the end record and drops it at the traceback, fed a line at a time', () => {
      const p = new TrainerLogParser();
      const bytes = Buffer.from(logs.stdout);
      const out: TrainerEvent[] = [];
      let at = 0;
      while (at < bytes.length) {
        const nl = bytes.indexOf(10, at);
        out.push(...p.push(bytes.subarray(at, nl + 1)));
        at = nl + 1;
      }
      out.push(...p.end());
      expect(types(out)).not.toContain('finished');
    });
  });

  it('the OOM of a worker (merged.log) is an oom error of the actor', () => {
    const evs = parseAll(exitLogs(trainer, 'oom').merged);
    expect(evs.filter((e) => e.type === 'error' && e.source === 'actor')).toEqual([
      expect.objectContaining({ kind: 'oom', message: 'Exception in train_batch', source: 'actor' }),
    ]);
  });
});

describe('the downstream meaning of finished', () => {
  const ingest = (evs: TrainerEvent[]) => {
    const s = new MetricsStore();
    for (const e of evs) s.ingest(e);
    return s;
  };

  it('the store says finished only for a completed run', () => {
    expect(ingest(parseAll(exitLogs('asyncwebrl', null).stdout)).finished).toBe(true);
    expect(ingest(parseAll(exitLogs('asyncwebrl', 'oom').stdout)).finished).toBe(false);
    expect(ingest(parseAll(exitLogs('upstream', 'worker-failed').main)).finished).toBe(false);
  });

  it('a later train step of a new attempt un-finishes the run, with no Recover record first', () => {
    const T = '20260412-23:50:00.000';
    const log = [
      rec(T, 'StatsLogger', 'INFO', 'Training completes! Total time elapsed 10.00.'),
      // recover.mode off: the next process logs no Recover record at all.
      rec(T, 'RayScheduler', 'INFO', "Creating 16 workers for role 'actor'"),
      stepRecords(T, 1, [['rollout/reward', '1.0000e-01']]),
      '',
    ].join('\n');
    const evs = parseAll(log);
    expect(types(evs)).toEqual(['finished', 'step']);
    expect(ingest(evs.slice(0, 1)).finished).toBe(true);
    expect(ingest(evs).finished).toBe(false);
  });

  it('upstream: a failed attempt, then one with no Recover record that completes, is finished', () => {
    const T = '20260412-23:50:00.000';
    // main.log is appended across restarts; recover.mode off: the second process logs no Recover record.
    const log = [
      exitLogs('upstream', 'oom').main.trimEnd(),
      rec(T, 'RayScheduler', 'INFO', "Creating 16 workers for role 'actor'"),
      stepRecords(T, 1, [['rollout/reward', '1.0000e-01']]),
      rec(T, 'StatsLogger', 'INFO', 'Training completes! Total time elapsed 10.00.'),
      rec(T, 'RolloutController', 'INFO', 'Workers deleted'),
      '',
    ].join('\n');
    const evs = parseAll(log);
    expect(types(evs).filter((t) => t === 'finished')).toEqual(['finished']);
    expect(types(evs).at(-1)).toBe('finished');
    expect(ingest(evs).finished).toBe(true);
  });

  it('`parse` says finished: yes / no', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-exit-'));
    try {
      const summary = (failure: Failure | null) => {
        const f = join(dir, `${failure ?? 'ok'}.log`);
        writeFileSync(f, exitLogs('upstream', failure).stdout);
        const r = spawnSync(process.execPath, [BIN, 'parse', f], { encoding: 'utf8' });
        expect(r.status).toBe(0);
        return r.stdout;
      };
      expect(summary(null)).toMatch(/^finished: yes$/m);
      expect(summary('ray-actor')).toMatch(/^finished: no$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('flushIdle and the held end record', () => {
  const T = '20260412-23:50:00.000';
  const log = Buffer.from(rec(T, 'StatsLogger', 'INFO', 'Training completes! Total time elapsed 10.00.') + '\n');

  it('keeps it held on idle, unless told how the process ended', () => {
    const p = new TrainerLogParser();
    expect(p.push(log)).toEqual([]);
    expect(p.flushIdle()).toEqual([]);
    expect(p.flushIdle({ completed: true })).toEqual([{ type: 'finished', time: '2026-04-12T23:50:00.000' }]);
    expect(p.end()).toEqual([]);
    const q = new TrainerLogParser();
    q.push(log);
    expect(q.flushIdle({ completed: false })).toEqual([]);
    expect(q.end()).toEqual([]);
  });
});
