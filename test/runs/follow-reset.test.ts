// `--follow` of a run whose log is truncated or replaced while followed: followToEnd tells its
// caller (onReset), so a `--follow --json` reader can tell "a new file from its start" from a resume's
// legitimately repeated steps; every event of each file arrives once.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../src/remote/index.js';
import { followToEnd } from '../../src/watch/follow-to-end.js';
import { serializeRunRecord, type RunRecord } from '../../src/runs/run-record.js';
import type { Target } from '../../src/runs/targets.js';
import { parseLogBytes, eventToJsonLine, type TrainerEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';

const LOG = readFileSync(`${SHARED}fixtures/areal-logs/run-a/stdout.log`);

describe('followToEnd across a replaced log', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-follow-reset-'));
  afterAll(() => rmSync(workdir, { recursive: true, force: true }));

  it('reports the reset between the two files and ends when the run does', async () => {
    const runId = '20261129-120000-reset';
    const runDir = join(workdir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    // The job: a process tagged with the run id, as the job wrapper's would be (a run.json without
    // its attempt would be a launch that never finished: abandoned, #17).
    const job = spawn('sleep', ['600'], {
      env: { ...process.env, AWRL_RUN_ID: runId },
      stdio: 'ignore',
      detached: true,
    });
    const record: RunRecord = {
      version: 1,
      runId,
      experiment: 'e',
      trial: 't',
      target: 'local',
      workdir,
      runDir,
      backend: 'direct',
      argv: ['python3'],
      secretNames: [],
      createdAt: '2026-11-29T12:00:00.000Z',
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
      attempts: [{ n: 1, reason: 'launch', startedAt: '2026-11-29T12:00:00.000Z', pid: job.pid! }],
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'job.pid'), `${job.pid}\n`);
    const half = LOG.indexOf('\n', LOG.length >> 1) + 1;
    const logPath = join(runDir, 'stdout.log');
    writeFileSync(logPath, LOG.subarray(0, half));
    const target: Target = {
      name: 'local',
      host: 'local',
      workdir,
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    const t = await openTransport('local', { followPollMs: 20 });
    const seen: string[] = [];
    try {
      const done = followToEnd(t, target, runId, logPath, {
        pollMs: 100,
        onEvent: (e: TrainerEvent) => seen.push(eventToJsonLine(e)),
        onReset: (reason) => seen.push(`reset ${reason}`),
      });
      const firstHalf = parseLogBytes(LOG.subarray(0, half)).filter((e) => e.type === 'step').length;
      await waitFor(() => seen.filter((l) => l.includes('"type":"step"')).length === firstHalf, {
        what: 'the first half',
      });
      // Rotated away; the new file is the whole log.
      renameSync(logPath, `${logPath}.1`);
      writeFileSync(logPath, LOG);
      await waitFor(() => seen.includes('reset replaced'), { what: 'the reset' });
      // The run ends: an attempt that exited 0.
      writeFileSync(join(runDir, 'exit.code'), '0\n');
      job.kill('SIGKILL');
      const outcome = await done;
      expect(outcome).toMatchObject({ kind: 'ended', state: 'finished' });
      const at = seen.indexOf('reset replaced');
      // Byte for byte: a parser reset keeps the JSON text of a fresh parse.
      expect(seen.slice(at + 1)).toEqual(parseLogBytes(LOG).map((e) => eventToJsonLine(e)));
      expect(seen.slice(0, at).length).toBeGreaterThan(0);
    } finally {
      if (job.exitCode === null && job.signalCode === null) job.kill('SIGKILL');
      await t.close();
    }
  });
});
