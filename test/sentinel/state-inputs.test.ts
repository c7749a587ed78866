// The sentinel asks a direct run's state (the list script, the one judge) when its in-process look
// at the run dir changes, and polls it only every 5 minutes besides (job-end-nudge.ts). Pinned here:
// through a direct run's life on a real shell (LocalTransport, real tagged processes), every change
// of the list script's state is a change of the look; the look ignores what the run writes while
// nothing about its state moves; and a nudge during a look under way is not lost.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/remote/local.js';
import { listRuns } from '../../src/runs/list.js';
import { watchRunState } from '../../src/runs/watch-state.js';
import type { RunState } from '../../src/runs/run-record.js';
import type { Target } from '../../src/runs/targets.js';
import { stateInputs } from '../../src/sentinel/job-end-nudge.js';
import { waitFor } from '../harness/wait.js';

const ID = 'r-state-inputs';
const dirs: string[] = [];
const procs: ChildProcess[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workdir(): { target: Target; runDir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-state-inputs-'));
  dirs.push(dir);
  const runDir = join(dir, '.awrl', 'runs', ID);
  mkdirSync(runDir, { recursive: true });
  return { target: { name: 'local', workdir: dir } as Target, runDir };
}

function writeRecord(runDir: string, extra: Record<string, unknown>): void {
  const record = {
    ...{ version: 1, runId: ID, experiment: 'e', trial: 't', target: 'local', workdir: '/', runDir },
    ...{ backend: 'direct', argv: ['python3'], secretNames: [], createdAt: '2026-12-01T00:00:00.000Z' },
    ...{ attempts: [], chainJobIds: [], autoResume: 1, nodes: 1 },
    ...extra,
  };
  // As the start script writes it: a whole file renamed into place.
  writeFileSync(join(runDir, 'run.json.tmp'), `${JSON.stringify(record)}\n`);
  renameSync(join(runDir, 'run.json.tmp'), join(runDir, 'run.json'));
}

const attempt = (n: number, pid: number) => ({ n, reason: n === 1 ? 'launch' : 'resume', startedAt: '', pid });

/** A process the list script takes for the job (its environ has the run tag) or the launcher (its argv). */
function job(): ChildProcess {
  const p = spawn('bash', ['-c', 'sleep 60; true'], { stdio: 'ignore', env: { ...process.env, AWRL_RUN_ID: ID } });
  procs.push(p);
  return p;
}
function launcher(): ChildProcess {
  const p = spawn('bash', ['-c', 'sleep 60; true', 'awrl-start', ID], { stdio: 'ignore' });
  procs.push(p);
  return p;
}
async function end(p: ChildProcess): Promise<void> {
  p.kill('SIGKILL');
  await once(p, 'exit'); // reaped: gone from /proc
}

describe("the sentinel's in-process look at a direct run's state", () => {
  it("changes whenever the list script's state changes, through a run's life", async () => {
    const { target, runDir } = workdir();
    const t = new LocalTransport();
    const seen: Array<{ state: RunState | 'gone'; look: string; what: string }> = [];
    const step = async (what: string) => {
      const [s] = await listRuns(t, target, { only: ID, tailBytes: 0 });
      seen.push({ state: s?.state ?? 'gone', look: stateInputs(runDir), what });
    };
    const l = launcher();
    writeFileSync(join(runDir, 'launch.pid'), `${l.pid}\n`);
    writeRecord(runDir, {});
    await step('being launched');
    await end(l);
    await step('the launcher died half-way');
    const j1 = job();
    writeFileSync(join(runDir, 'job.pid'), `${j1.pid}\n`);
    await step('job.pid written, its start not recorded yet');
    writeRecord(runDir, { attempts: [attempt(1, j1.pid!)] });
    unlinkSync(join(runDir, 'launch.pid'));
    await step('started');
    // What the run writes while its state stays: its log, the sentinel's files.
    appendFileSync(join(runDir, 'stdout.log'), 'Train step 1/8 done.\n');
    writeFileSync(join(runDir, 'sentinel.json'), '{"v":1}\n');
    await step('its log grew');
    writeFileSync(join(runDir, 'attempt-exit.1'), '1\n');
    writeFileSync(join(runDir, 'exit.code'), '1\n');
    await step('its exit status written, the job not gone yet');
    await end(j1);
    await step('the job gone with exit 1');
    // Auto-resume: a new attempt (start-scripts.ts removes the old job.pid and exit.code first).
    unlinkSync(join(runDir, 'exit.code'));
    unlinkSync(join(runDir, 'job.pid'));
    const j2 = job();
    writeFileSync(join(runDir, 'job.pid'), `${j2.pid}\n`);
    writeRecord(runDir, { attempts: [attempt(1, j1.pid!), attempt(2, j2.pid!)] });
    await step('resumed');
    await end(j2);
    await step('the job gone without an exit status');
    writeRecord(runDir, { attempts: [attempt(1, j1.pid!), attempt(2, j2.pid!)], stopRequestedAt: 'T' });
    await step('a stop recorded');
    rmSync(runDir, { recursive: true });
    await step('the run dir removed');

    // The run went through these states (the list script's), so the look was put to the test.
    expect(seen.map((s) => s.state)).toEqual([
      'submitted',
      'failed',
      'running',
      'running',
      'running',
      'running',
      'failed',
      'running',
      'failed',
      'stopped',
      'gone',
    ]);
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]];
      if (a.state !== b.state) expect(b.look, `${a.what} → ${b.what}`).not.toBe(a.look);
    }
    // Only its log and the sentinel's file written: the same look, no list script asked.
    expect(seen[4].look).toBe(seen[3].look);
    await t.close();
  });

  it('a nudge during a look under way is not lost: the state is asked again once that look is over', async () => {
    const { target, runDir } = workdir();
    const j = job();
    writeFileSync(join(runDir, 'job.pid'), `${j.pid}\n`);
    writeRecord(runDir, { attempts: [attempt(1, j.pid!)] });
    const local = new LocalTransport();
    // Each look's answer held until the test lets it go: the run ends while a look is under way.
    let release: () => void = () => undefined;
    let looks = 0;
    const held: LocalTransport = Object.create(local) as LocalTransport;
    held.exec = async (...a: Parameters<LocalTransport['exec']>) => {
      const r = await local.exec(...a);
      looks++;
      await new Promise<void>((res) => (release = res));
      return r;
    };
    const states: RunState[] = [];
    const w = watchRunState(held, target, ID, { intervalMs: 600_000, onChange: (s) => states.push(s.state) });
    try {
      await waitFor(() => looks === 1, { what: 'the first look' });
      release();
      await waitFor(() => states.length === 1, { what: 'the first state' });
      expect(states).toEqual(['running']);
      w.now();
      await waitFor(() => looks === 2, { what: 'the nudged look to have read the run' });
      // It read the run running; the run ends now, and says so while that look is still under way.
      writeFileSync(join(runDir, 'exit.code'), '0\n');
      await end(j);
      w.now();
      release();
      await waitFor(() => looks === 3, { what: 'the look asked during the last one' });
      release();
      await waitFor(() => states.length === 2, { what: 'the end' });
      expect(states).toEqual(['running', 'finished']);
    } finally {
      w.stop();
      release();
      await local.close();
    }
  });
});
