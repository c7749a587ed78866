// The Ray bring-up in the cockpit's header: while a Slurm attempt brings up its Ray cluster (the
// batch script's `awrl: starting Ray: …` lines, read by the one watch), the header's second line
// says so, painted on a real terminal (@xterm/headless); once the trainer's first record is read it
// is gone and the step figures are back. A log read whole (bring-up, then the trainer) never shows it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { RunFeed } from '../../src/session/run-feed.js';
import type { Target } from '../../src/runs/targets.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { dashboardHeader } from '../../src/ui/screens/dashboard.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';
import { paintLines } from './helpers.js';

const WHY = 'RuntimeError: Failed to connect to GCS at address 127.0.0.11:6379 within 60 seconds.';
const BRINGUP = [
  'awrl: attempt 1 (job 7) on n1,n2,n3,n4',
  'awrl: starting Ray: 1/4 nodes joined',
  `awrl: starting Ray: 3/4 nodes joined, n3 failed: ${WHY}`,
  '',
].join('\n');
// The trainer's first lines (run-a up to its second step: step 1 is a whole record).
const main = readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`);
const TRAINER = main.subarray(0, main.indexOf('Train step 2/'));

describe('the Ray bring-up in the dashboard header', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-ray-header-'));
  let t: Transport;
  const target = {
    name: 'login',
    host: 'local',
    workdir: dir,
    backend: 'slurm',
    slurm: { extraArgs: [] },
  } as unknown as Target;
  const feeds: RunFeed[] = [];
  const open = (logPath: string) => {
    const feed = new RunFeed({
      transport: t,
      target,
      summary: {
        id: 'r-1',
        target: 'login',
        state: 'running',
        step: null,
        totalSteps: null,
        reward: null,
        lastStepAt: null,
      },
      logPath,
      statePollMs: 60_000,
      onChange: () => {},
    });
    feeds.push(feed);
    return feed;
  };
  const header = (feed: RunFeed, width = 160) =>
    paintLines(dashboardHeader(feed.getView(), Date.now(), width), width, 2)
      .text()
      .split('\n');
  beforeAll(async () => {
    t = await openTransport('local', { followPollMs: 20 });
  });
  afterAll(async () => {
    for (const f of feeds) f.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the bring-up line while the attempt is in it, and the step figures once the trainer writes', async () => {
    const log = join(dir, 'live.log');
    writeFileSync(log, BRINGUP);
    const feed = open(log);
    const told: WatchOutput[] = [];
    feed.watch.on((o) => told.push(o));
    feed.start();
    await waitFor(() => feed.getView().rayBringUp, { timeoutMs: 10_000, what: 'the bring-up phase' });
    const during = header(feed);
    expect(during[1]).toBe(`starting Ray: 3/4 nodes joined, n3 failed: ${WHY}`);
    expect(during[0]).toMatch(/^r-1 on login │ connected │ running/);
    // Narrow: cut to the width, never wrapped over the next line.
    expect(header(feed, 60)[1]).toBe(`starting Ray: 3/4 nodes joined, n3 failed: RuntimeError: Fa…`);
    // The failed node is an alert too; the progress itself is the header's alone.
    expect(feed.getView().alerts.map((a) => a.id)).toContain('ray/bringup');

    appendFileSync(log, TRAINER);
    await waitFor(() => feed.getView().rayBringUp === undefined, { timeoutMs: 10_000, what: 'the bring-up over' });
    await waitFor(() => header(feed)[1].startsWith('step 1/160'), { timeoutMs: 10_000, what: 'the step figures' });
    expect(feed.getView().alerts.map((a) => a.id)).not.toContain('ray/bringup');
    // What the watch told its renderers (`follow` prints the updates, nothing for the end).
    const ray = told.filter((o) => o.type === 'ray').map((o) => (o.type === 'ray' ? (o.update?.text ?? null) : 0));
    expect(ray).toEqual(['starting Ray: 1/4 nodes joined', `starting Ray: 3/4 nodes joined, n3 failed: ${WHY}`, null]);
  });

  it('a log read whole, the trainer after its bring-up: no bring-up phase', async () => {
    const log = join(dir, 'whole.log');
    writeFileSync(
      log,
      Buffer.concat([
        Buffer.from(
          BRINGUP.replace('3/4 nodes joined, n3 failed', '4/4 nodes joined') +
            'awrl: starting Ray: 4/4 nodes joined; starting the trainer\n',
        ),
        TRAINER,
      ]),
    );
    const feed = open(log);
    feed.start();
    await waitFor(() => feed.trainerLinesOffset > BRINGUP.length + 100 && feed.getView().figures.step === 1, {
      timeoutMs: 10_000,
      what: 'the whole log read',
    });
    expect(feed.getView().rayBringUp).toBeUndefined();
    expect(header(feed)[1]).toMatch(/^step 1\/160/);
  });
});
