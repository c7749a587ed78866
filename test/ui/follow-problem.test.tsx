// The cockpit on a run whose log it cannot read (permissions) while ssh itself works: it used to show
// an empty dashboard that said `connected`, and nothing else. The header must say the log is not
// followed, the status line what is wrong (target, path, error, what to do), the event log a
// warning; once the log is readable again, an info line 'reading PATH again', the status goes back,
// and the steps arrive. Real sshd whose sessions run without the capabilities that let root read
// any file (as an ordinary user's would), real simulated run, rendered frames.
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransport } from '../../src/remote/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';
import { waitForFrame } from './helpers.js';
import { watchSimRun, type WatchedSim } from './sim-run.js';

const stepOf = (frame: string): number => Number(/step (\d+)\/\d+/.exec(frame)?.[1] ?? 0);

describe('cockpit: a log that cannot be followed is said, and the saying goes once it is read', () => {
  let sshd: SshdHandle;
  let w: WatchedSim;
  let log: string;

  beforeAll(async () => {
    sshd = await startSshd({
      extraConfig: [
        'ForceCommand exec setpriv --bounding-set=-dac_override,-dac_read_search -- /bin/bash -c "$SSH_ORIGINAL_COMMAND"',
      ],
    });
    w = await watchSimRun({
      env: { AWRL_SIM_SPEED: '400' },
      overrides: ['++trial_name=unreadable-log'],
      via: async (sim) => {
        log = join(sim.dir, '.awrl', 'runs', sim.runId, 'stdout.log');
        await waitFor(() => existsSync(log), { timeoutMs: 20_000, what: 'the run log' });
        // The trainer keeps writing through its open descriptor; only new readers are refused.
        chmodSync(log, 0o000);
        const transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile, followPollMs: 50 });
        return {
          target: { ...sim.target, name: 'guarded', host: sshd.alias, sshConfigFile: sshd.sshConfigFile },
          transport,
        };
      },
      runsPollMs: 1000,
      statePollMs: 1000,
      columns: 320,
    });
  }, 60_000);

  afterAll(async () => {
    if (log && existsSync(log)) chmodSync(log, 0o644);
    await w?.close();
    await sshd?.stop();
  });

  it('header and status line name the problem, the event log warns; readable again: info line, status clear, steps arrive', async () => {
    const { sim, session, r } = w;
    const bad = await waitForFrame(
      r,
      (f) => f.includes('cannot follow the log') && f.includes(`cannot follow ${log}`),
      'the follow problem on screen',
      30_000,
    );
    if (process.env.AWRL_DEBUG) console.error(bad);
    const lines = bad.split('\n');
    // The header's first line (under the tab bar) says it next to the connection.
    expect(lines.find((l) => l.includes(`${sim.runId} on guarded`))).toContain('connected, cannot follow the log');
    // The status line (the frame's last line) says what, where, why and what to do.
    const status = lines.filter((l) => l.trim() !== '').at(-1)!;
    expect(status).toContain(`cannot follow ${log} on ${sshd.alias}: Permission denied`);
    expect(status).toContain(`check its permissions for the ssh user on ${sshd.alias}`);
    expect(stepOf(bad)).toBe(0);
    // The log pane (the trainer's lines by default) says it too, as a line of the cockpit's own.
    expect(bad).toContain(`— cannot follow ${log} on ${sshd.alias}: Permission denied`);
    const warnings = session
      .getState()
      .run!.log.filter((l) => l.level === 'warning' && l.text.includes(`cannot follow ${log}`));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.text).toContain('Permission denied');

    chmodSync(log, 0o644);
    const good = await waitForFrame(
      r,
      (f) => stepOf(f) >= 1 && !f.includes('cannot follow'),
      'steps, and the problem gone',
      40_000,
    );
    expect(good).toContain(`${sim.runId} on guarded │ connected │`);
    const events = session.getState().run!.log;
    const again = events.findIndex((l) => l.level === 'info' && l.text === `reading ${log} again`);
    expect(again).toBeGreaterThan(events.indexOf(warnings[0]!));
    // Said before what it reads: the first step comes after it.
    expect(again).toBeLessThan(events.findIndex((l) => /Train step 1\//.test(l.text)));
    const notes = session
      .getState()
      .run!.trainerLines!.lines.filter((l) => l.kind === 'note')
      .map((l) => l.text);
    expect(notes.filter((t) => t.startsWith('— cannot follow'))).toHaveLength(1);
    expect(notes).toContain(`— reading ${log} again —`);
  }, 120_000);
});
