// A real trainer's clock is the wall clock: a run restarted after a crash writes times later than
// anything the crashed run wrote. The simulator's instant mode runs its virtual clock far ahead of
// the wall clock (hours of training in a second), so a restart that started from the wall clock
// again wrote its resume earlier than the crash. Times must be monotonic across restarts: in the
// log files, in the events, whatever killed the previous process. (The SIGKILL case runs dist/: build first.)
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLogBytes, isoTimeToMs } from '../../src/trainer-log/index.js';
import { simWorkspace, CONFIG_LOCAL, type SimWorkspace } from './helpers.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { SimClock, RESTART_GAP_MS } from '../../src/sim/clock.js';

const workspaces: SimWorkspace[] = [];
afterAll(() => workspaces.forEach((w) => w.cleanup()));

/** Every event time in the file, in file order, with the event type (for the failure message). */
function timesOf(buf: Buffer): { type: string; source: string; ms: number }[] {
  return parseLogBytes(buf).flatMap((e) =>
    'time' in e && typeof e.time === 'string'
      ? [{ type: e.type, source: 'source' in e && e.source ? e.source : 'main', ms: isoTimeToMs(e.time) }]
      : [],
  );
}

/** Log line header times (`20261129-15:34:51.123`), in file order. */
function headerTimes(buf: Buffer): number[] {
  return [...buf.toString('utf8').matchAll(/^(?:\[\w+\]\s+)?(\d{4})(\d\d)(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3}) /gm)].map(
    (m) => new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]).getTime(),
  );
}

function expectMonotonic(list: number[], what: string): void {
  for (let i = 1; i < list.length; i++)
    expect(list[i], `${what}: #${i} goes back in time`).toBeGreaterThanOrEqual(list[i - 1]);
}

describe("instant mode: a restarted run continues the crashed run's time", () => {
  it('after a crash fault (oom), main.log and merged.log times never go back, and the resume comes after the error', async () => {
    const ws = simWorkspace(CONFIG_LOCAL, ['total_train_epochs=1', 'recover.freq_steps=3', 'recover.freq_secs=null'], {
      AWRL_SIM_FAULT: 'oom@5',
    });
    workspaces.push(ws);
    expect(await ws.run()).toBe(1);
    expect(await ws.run()).toBe(0);
    const events = timesOf(ws.read('main.log'));
    const iResume = events.findIndex((e) => e.type === 'resume');
    expect(iResume).toBeGreaterThan(0);
    const lastBefore = Math.max(...events.slice(0, iResume).map((e) => e.ms));
    expect(events[iResume].ms).toBeGreaterThan(lastBefore);
    expectMonotonic(
      events.map((e) => e.ms),
      'main.log events',
    );
    expectMonotonic(headerTimes(ws.read('main.log')), 'main.log line times');
    // merged.log interleaves writers, and a worker's multi-line record closes when its next line
    // comes: each writer's own times are what must not go back.
    const merged = timesOf(ws.read('merged.log'));
    for (const src of new Set(merged.map((e) => e.source)))
      expectMonotonic(
        merged.filter((e) => e.source === src).map((e) => e.ms),
        `merged.log ${src} events`,
      );
  });

  it('after the process was killed (SIGKILL: no chance to write anything at exit), the restart is still later', async () => {
    const ws = simWorkspace(CONFIG_LOCAL, ['total_train_epochs=1', 'recover.freq_steps=2', 'recover.freq_secs=null']);
    workspaces.push(ws);
    // A trainer process stopped hard in the middle of a step: a stall fault holds it there.
    const main = new URL('../../dist/sim/main.js', import.meta.url).pathname;
    const child = spawn(
      process.execPath,
      [
        main,
        '--config',
        CONFIG_LOCAL,
        `cluster.fileroot=${ws.fileroot}`,
        '++stats_logger.wandb.mode=disabled',
        'total_train_epochs=1',
        'recover.freq_steps=2',
        'recover.freq_secs=null',
      ],
      {
        env: {
          ...process.env,
          AWRL_SIM_SPEED: 'instant',
          AWRL_SIM_FAULT: 'stall:ppo_update@6',
          AWRL_SIM_DATASET_SIZE: '512',
          USER: 'simuser',
          LOGNAME: 'simuser',
        },
        stdio: 'ignore',
      },
    );
    try {
      await waitFor(
        () =>
          existsSync(join(ws.fileroot, '.awrl-sim', 'state.json')) &&
          /"phase":"ppo_update","step":6/.test(readFileSync(join(ws.fileroot, '.awrl-sim', 'state.json'), 'utf8')),
        {
          timeoutMs: 30_000,
          what: 'the trainer to stall in step 6',
        },
      );
    } finally {
      child.kill('SIGKILL');
    }
    await waitFor(() => !pidAlive(child.pid!), { what: 'the killed trainer to be gone' });
    expect(await ws.run()).toBe(0);
    const events = timesOf(ws.read('main.log'));
    const iResume = events.findIndex((e) => e.type === 'resume');
    expect(iResume).toBeGreaterThan(0);
    expect(events[iResume].ms).toBeGreaterThan(Math.max(...events.slice(0, iResume).map((e) => e.ms)));
    expectMonotonic(headerTimes(ws.read('main.log')), 'main.log line times');
  });

  it('a paced run after an instant one starts after its times but paces from its own start (no wait for the wall clock to catch up)', async () => {
    const ahead = Date.now() + 3_600_000;
    const clock = new SimClock(true, ahead);
    expect(clock.now()).toBe(ahead + RESTART_GAP_MS);
    await clock.advance(0.05); // would wait an hour if paced against the virtual start
    expect(clock.now()).toBe(ahead + RESTART_GAP_MS + 50);
    expect(clock.elapsedS()).toBeGreaterThanOrEqual(0.05);
    expect(clock.elapsedS()).toBeLessThan(3600);
  });
});
