// The simulator's logs, parsed by the project's parser, give back exactly the simulator's own ground
// truth: every stats value of every step, memory lines, batch waits, resume points, errors, warnings
// and the end, for main.log, merged.log and stdout; with the Ray and the local scheduler.
import { afterAll, describe, expect, it } from 'vitest';
import { parseLogBytes, TrainerLogParser } from '../../src/trainer-log/index.js';
import type { TrainerEvent } from '../../src/trainer-log/events.js';
import { truthFor, type Output } from '../../src/sim/truth.js';
import { simWorkspace, CONFIG_RAY, CONFIG_LOCAL, type SimWorkspace } from './helpers.js';

// Records of different writers (controller, each worker) interleave, and a parser can only close a
// worker's multi-line record when that writer's next line arrives: compare each writer's own sequence.
function bySource(events: readonly TrainerEvent[]): Map<string, TrainerEvent[]> {
  const m = new Map<string, TrainerEvent[]>();
  for (const e of events) {
    const src = 'source' in e && e.source && e.source !== 'main' ? e.source : 'main';
    m.set(src, [...(m.get(src) ?? []), e]);
  }
  return m;
}

function outputBytes(ws: SimWorkspace, out: Output): Buffer {
  return out === 'stdout' ? Buffer.from(ws.stdout) : ws.read(out === 'main' ? 'main.log' : 'merged.log');
}

const workspaces: SimWorkspace[] = [];
afterAll(() => workspaces.forEach((w) => w.cleanup()));

// 16 steps each (dataset 2048 at batch 128; 512 at batch 32); a recover checkpoint every 3 steps, so a
// crash in step 6 (5) resumes at step 4 and steps repeat.
describe.each([
  ['ray', CONFIG_RAY, '2048', 'nccl-timeout@6,omniboxes@2,episode-timeout@3,nan-grad@4,zero-reward@9-10'],
  ['local', CONFIG_LOCAL, '512', 'oom@5,omniboxes@3,episode-timeout@2-3,nan-grad@7'],
])('scheduler %s: crash, resume, finish', (name, config, datasetSize, faults) => {
  const ws = simWorkspace(config, ['total_train_epochs=1', 'recover.freq_steps=3', 'recover.freq_secs=null'], {
    AWRL_SIM_FAULT: faults,
    AWRL_SIM_DATASET_SIZE: datasetSize,
  });
  workspaces.push(ws);
  let ran: Promise<void> | null = null;
  const runBoth = (): Promise<void> =>
    (ran ??= (async () => {
      await ws.run();
      await ws.run();
    })());

  it('crashes once (exit 1) and the resumed run finishes (exit 0)', async () => {
    await runBoth();
    expect(ws.codes).toEqual([1, 0]);
    // AsyncWebRL's exit path: the end record (close()), then the exception raised uncaught.
    expect(ws.stderr).toMatch(/^Traceback \(most recent call last\):\n[\s\S]*raise exc_value\n[\s\S]*\n$/);
    const uncaught = parseLogBytes(Buffer.from(ws.stderr));
    expect(uncaught).toEqual([
      expect.objectContaining({ type: 'error', source: 'main', kind: /oom/.test(faults) ? 'oom' : 'nccl-timeout' }),
    ]);
  });

  for (const out of ['main', 'merged', 'stdout'] as const) {
    it(`${out}: the parser gives back exactly the ground truth`, async () => {
      await runBoth();
      const truth = truthFor(ws.truth(), out);
      const parsed = parseLogBytes(outputBytes(ws, out));
      expect(truth.length).toBeGreaterThan(20);
      const want = bySource(truth);
      const got = bySource(parsed);
      expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [src, evs] of want) expect(got.get(src), `source ${src}`).toEqual(evs);
    });
  }

  it('chunked parsing (bytes cut anywhere) gives the same events as the whole file', async () => {
    await runBoth();
    const buf = ws.read('merged.log');
    const p = new TrainerLogParser();
    const events: TrainerEvent[] = [];
    for (let i = 0; i < buf.length; i += 977) events.push(...p.push(buf.subarray(i, i + 977)));
    events.push(...p.end());
    expect(events).toEqual(parseLogBytes(buf));
  });

  it('repeats the steps after the last recover point, with one resume event at the right step', async () => {
    await runBoth();
    const events = parseLogBytes(ws.read('main.log'));
    const steps = events.filter((e) => e.type === 'step').map((e) => (e as { globalStep: number }).globalStep);
    const resumes = events.filter((e) => e.type === 'resume') as Array<{ resumeStep: number }>;
    const errors = events.filter((e) => e.type === 'error');
    expect(resumes).toHaveLength(1);
    expect(errors).toHaveLength(1);
    const crashStep = Number(/@(\d+)/.exec(faults)![1]);
    // Before the crash: 1..crashStep-1; then from the recover point on to the end.
    const beforeCrash = steps.slice(0, crashStep - 1);
    expect(beforeCrash).toEqual(Array.from({ length: crashStep - 1 }, (_, i) => i + 1));
    const after = steps.slice(crashStep - 1);
    expect(after[0]).toBe(resumes[0].resumeStep);
    expect(resumes[0].resumeStep).toBe(4); // the recover point (after step 3) is older: steps repeat
    expect(after[after.length - 1]).toBe(16);
    // The resume event sits between the error and the first repeated step.
    const iErr = events.indexOf(errors[0]);
    const iRes = events.indexOf(resumes[0] as unknown as TrainerEvent);
    expect(iRes).toBeGreaterThan(iErr);
    // Two end records (close() runs on every exit): only the completed attempt's is finished.
    expect(parseLogBytes(ws.read('main.log')).length).toBeGreaterThan(0);
    expect(
      ws
        .read('main.log')
        .toString()
        .match(/Training completes!/g),
    ).toHaveLength(2);
    expect(events.filter((e) => e.type === 'finished')).toHaveLength(1);
    expect(events.at(-1)?.type).toBe('finished');
  });

  it('faults show in the numbers: nan grad norm, zero reward, omniboxes warnings', async () => {
    await runBoth();
    const events = parseLogBytes(outputBytes(ws, name === 'ray' ? 'stdout' : 'merged'));
    const steps = events.filter((e) => e.type === 'step') as Array<{
      globalStep: number;
      stats: Record<string, number | null>;
    }>;
    const last = new Map(steps.map((s) => [s.globalStep, s.stats]));
    const nanStep = Number(/nan-grad@(\d+)/.exec(faults)![1]);
    expect(last.get(nanStep)!['ppo_actor/update/grad_norm']).toBeNaN();
    expect(last.get(nanStep)!['ppo_actor/update/update_successful']).toBe(0);
    expect(last.get(nanStep + 1)!['ppo_actor/update/grad_norm']).toBeGreaterThan(0);
    if (faults.includes('zero-reward')) {
      expect(last.get(9)!['rollout/reward']).toBe(0);
      expect(last.get(11)!['rollout/reward']).toBeGreaterThan(0);
    }
    // rollout/omniboxes_failed is a fraction of the episodes (as the trainer logs it): above the
    // cockpit's 5% alert on the fault's step, below it elsewhere.
    const omniStep = Number(/omniboxes@(\d+)/.exec(faults)![1]);
    expect(last.get(omniStep)!['rollout/omniboxes_failed']).toBeGreaterThan(0.05);
    expect(last.get(omniStep)!['rollout/omniboxes_failed']).toBeLessThan(1);
    expect(last.get(nanStep)!['rollout/omniboxes_failed']).toBeLessThan(0.05);
    const kinds = events.filter((e) => e.type === 'warning').map((e) => (e as { kind: string }).kind);
    expect(kinds).toContain('omniboxes-alloc');
    expect(kinds).toContain('episode-timeout');
  });
});
