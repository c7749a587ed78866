// One watch, two renderers: the cockpit's RunFeed (in process) and `awrl-tui follow --json` (the
// built CLI) watch the same run while its log is written in cuts at random places (a seeded RNG),
// over the local transport. Both are renderers of src/watch's RunWatch, so they must tell the same
// stream: the same events in the same order, the same alerts fired and cleared, and the end
// state after the records that led to it. Real files, a real process standing in for the job.
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../src/remote/index.js';
import { serializeRunRecord, type RunRecord } from '../../src/runs/run-record.js';
import type { Target } from '../../src/runs/targets.js';
import { RunFeed } from '../../src/session/run-feed.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { eventToJsonLine } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { startCli } from './cli-process.js';

const LOG = readFileSync(`${SHARED}fixtures/areal-logs/run-a/stdout.log`);

/** mulberry32: the cuts are random, and the same on every run of the test. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the cockpit and follow on one recorded byte stream', () => {
  const workdir = mkdtempSync(join(tmpdir(), 'awrl-renderers-'));
  const pids: number[] = [];
  afterAll(() => {
    for (const p of pids) if (pidAlive(p)) process.kill(p, 'SIGKILL');
    rmSync(workdir, { recursive: true, force: true });
  });

  it('tell the same events and alerts, in the same order, and end alike', async () => {
    const runId = 'renderers-20261201-000000-0001';
    const runDir = join(workdir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    // The job: a process tagged with the run id, as the job wrapper's would be.
    const job = spawn('sleep', ['600'], {
      env: { ...process.env, AWRL_RUN_ID: runId },
      stdio: 'ignore',
      detached: true,
    });
    pids.push(job.pid!);
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
      createdAt: '2026-12-01T00:00:00.000Z',
      attempts: [{ n: 1, reason: 'launch', startedAt: '2026-12-01T00:00:00.000Z', pid: job.pid! }],
      chainJobIds: [],
      autoResume: 0,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    writeFileSync(join(runDir, 'job.pid'), `${job.pid}\n`);
    const logPath = join(runDir, 'stdout.log');
    writeFileSync(logPath, '');
    const target: Target = {
      name: 'local',
      host: 'local',
      workdir,
      python: 'python3',
      backend: 'direct',
      slurm: { extraArgs: [] },
    };
    const t = await openTransport('local', { followPollMs: 20 });
    const cockpit: string[] = [];
    const feed = new RunFeed({
      transport: t,
      target,
      logPath,
      statePollMs: 200,
      summary: {
        id: runId,
        target: 'local',
        state: 'running',
        step: null,
        totalSteps: null,
        reward: null,
        lastStepAt: null,
      },
      onChange: () => undefined,
    });
    feed.watch.on((w: WatchOutput) => {
      if (w.type === 'record' && w.record.type !== 'save') cockpit.push(eventToJsonLine(w.record));
      else if (w.type === 'alert') cockpit.push(`alert ${w.alert.id}`);
      else if (w.type === 'alert-cleared') cockpit.push(`${w.endedWithRun ? 'ended' : 'cleared'} ${w.alert.id}`);
      else if (w.type === 'state') cockpit.push(`state ${w.summary.state}`);
    });
    feed.start();
    const follow = startCli(['follow', runId, '--target', 'local', '--workdir', workdir, '--json'], {});
    try {
      await waitFor(() => follow.stderr.includes('state    running'), {
        timeoutMs: 30_000,
        what: 'follow to see the run running',
      });
      // The log written in random cuts: inside records, tables, multi-byte characters.
      const next = rng(16);
      for (let at = 0; at < LOG.length;) {
        const n = 1 + Math.floor(next() * 40_000);
        appendFileSync(logPath, LOG.subarray(at, at + n));
        at += n;
        await new Promise((r) => setTimeout(r, Math.floor(next() * 30)));
      }
      // The job ends with a failure status written, as the wrapper writes it.
      writeFileSync(join(runDir, 'exit.code'), '1\n');
      process.kill(job.pid!, 'SIGKILL');
      expect(await follow.done, follow.stderr).toBe(1);
      await waitFor(() => cockpit.includes('state failed'), { timeoutMs: 30_000, what: 'the cockpit to see the end' });
    } finally {
      feed.close();
      await t.close();
    }
    const printed = follow.stdout
      .trim()
      .split('\n')
      .flatMap((l) => {
        const o = JSON.parse(l) as { type: string; id?: string; state?: string; endedWithRun?: boolean };
        if (o.type === 'alert') return [`alert ${o.id}`];
        if (o.type === 'alert-cleared') return [`${o.endedWithRun ? 'ended' : 'cleared'} ${o.id}`];
        if (o.type === 'state') return [`state ${o.state}`];
        if (o.type === 'run' || o.type === 'connection') return [];
        return [l];
      });
    // The cockpit also heard the first `running`: follow prints it on stderr only.
    expect(cockpit.filter((l) => l !== 'state running')).toEqual(printed);
    expect(printed.filter((l) => l.startsWith('alert ')).length).toBeGreaterThan(0);
    expect(printed.at(-1)).toBe('state failed');
    // The 2 h hang before the NCCL crash was not got past: the crash ended it, in both renderers and
    // in the cockpit's history (its Alerts panel and h list).
    expect(printed).toContain('ended health/stall/rollout_wait');
    expect(printed).not.toContain('cleared health/stall/rollout_wait');
    const hang = feed.watch.alerts.history.entries().find((e) => e.key === 'health/stall/rollout_wait');
    expect(hang).toMatchObject({ active: false, endedWithRun: true });
    // Both saw every event of the log (the parser on the whole file).
    const parsed = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '../../bin/awrl-tui.js'), 'parse', '--json', logPath],
      { encoding: 'utf8' },
    );
    // …but the end record: the whole file alone reads as completed, the job's exit status 1 says
    // it was not (Training completes! is written on every exit), so neither renderer says finished.
    const whole = parsed.stdout.trimEnd().split('\n');
    expect(whole.at(-1)).toMatch(/^\{"type":"finished"/);
    expect(printed.filter((l) => l.startsWith('{'))).toEqual(whole.slice(0, -1));
  }, 120_000);
});
