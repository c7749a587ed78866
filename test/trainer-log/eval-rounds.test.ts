// webgym's test rollout rounds and wandb's banner as events (the fixture: eval-log.ts, written from
// test_rollout.py, rl_trainer.py and stats_logger.py): every chunking gives the same events, the JSON
// Lines form has the fields in its order, and a completed round carries its difficulty buckets
// only when the next step's table names that round.
import { describe, expect, it } from 'vitest';
import { JsonLinesParser, eventToJsonLine, type TrainerEvent } from '../../src/trainer-log/index.js';
import { parseAll, rec } from './helpers.js';
import { WANDB_URL, completeLine, evalLog } from './eval-log.js';

const ofType = (evs: TrainerEvent[], ...types: string[]) => evs.filter((e) => types.includes(e.type));

describe('eval rounds', () => {
  const events = parseAll(evalLog());

  it('emits eval-progress for each progress line and eval for each completed round, in log order', () => {
    const lines = ofType(events, 'eval', 'eval-progress', 'step', 'wandb').map(eventToJsonLine);
    expect(lines).toEqual([
      `{"type":"wandb","url":"${WANDB_URL}","time":null}`,
      '{"type":"eval-progress","round":0,"modelStep":0,"reward":0.375,"completed":8,"total":80,"failed":0,"elapsedS":269,"time":"2026-05-25T12:20:00.000"}',
      expect.stringMatching(/^\{"type":"step",.*"globalStep":1,/),
      '{"type":"eval-progress","round":0,"modelStep":0,"reward":0.4125,"completed":78,"total":80,"failed":2,"elapsedS":1469,"time":"2026-05-25T12:40:00.000"}',
      '{"type":"eval","round":0,"modelStep":0,"reward":0.4125,"completed":78,"total":80,"failed":2,"numSteps":7.3,"timeS":1529,' +
        '"byDifficulty":{"easy":{"reward":0.6,"numSteps":4.5,"n":30},"medium":{"reward":0.38462,"numSteps":7.1,"n":28},"hard":{"reward":0.2,"numSteps":11.2,"n":20}},' +
        '"time":"2026-05-25T12:41:00.001"}',
      expect.stringMatching(/^\{"type":"step",.*"globalStep":2,/),
      '{"type":"eval-progress","round":1,"modelStep":1,"reward":0.45,"completed":20,"total":74,"failed":0,"elapsedS":1000,' +
        '"blockedWebsites":2,"blockedNames":["booking.com","expedia.com"],"blockedTasks":6,"time":"2026-05-25T13:00:00.000"}',
      // The step after round 1 does not name it: no buckets; the blocked sites and abandoned tasks stay.
      '{"type":"eval","round":1,"modelStep":1,"reward":0.4638,"completed":69,"total":74,"failed":5,"numSteps":6.9,"timeS":2220,' +
        '"blockedWebsites":2,"blockedNames":["booking.com","expedia.com"],"blockedTasks":6,"abandoned":3,"time":"2026-05-25T13:20:00.001"}',
      expect.stringMatching(/^\{"type":"step",.*"globalStep":3,/),
    ]);
  });

  it('keeps the grace period as a warning and the thread crash as an error', () => {
    const w = ofType(events, 'warning', 'error');
    expect(w.map((e) => (e.type === 'warning' || e.type === 'error' ? e.message : ''))).toEqual([
      'Grace period expired: abandoning 3 remaining tasks as failures',
      'Test rollout thread crashed, retrying in 30s...',
    ]);
  });

  it('gives the same events for any chunking and through the JSON Lines parser', () => {
    const bytes = new TextEncoder().encode(evalLog());
    const whole = events.map(eventToJsonLine).join('\n') + '\n';
    for (const size of [1, 7, 64, 333]) {
      const cuts: number[] = [];
      for (let at = size; at < bytes.length; at += size) cuts.push(size);
      expect(parseAll(bytes, cuts).map(eventToJsonLine).join('\n') + '\n').toBe(whole);
      const p = new JsonLinesParser();
      const out: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) out.push(Buffer.from(p.push(bytes.subarray(at, at + size))));
      out.push(Buffer.from(p.end()));
      expect(Buffer.concat(out).toString('utf8')).toBe(whole);
    }
  });

  it('emits a held round at the end of the input, and a round that is completed twice (a restart) twice', () => {
    const T = '20260525-14:00:00.000';
    const log = [
      rec(T, 'TestRollout', 'INFO', completeLine(0, 0.5, 5.0, 10, 10, 0, 60.0, 4)),
      'awrl: attempt 2',
      rec(T, 'TestRollout', 'INFO', completeLine(0, 0.25, 5.0, 8, 10, 2, 61.0, 6)),
    ].join('\n');
    const evals = ofType(parseAll(log), 'eval').map((e) => (e.type === 'eval' ? [e.round, e.modelStep] : []));
    expect(evals).toEqual([
      [0, 4],
      [0, 6],
    ]);
  });
});

describe('wandb banner', () => {
  it('takes the run URL from the header, and from the footer only for a run the header did not name', () => {
    const log = [
      `wandb:  View run at ${WANDB_URL}`,
      rec('20260525-12:00:00.000', 'X', 'INFO', 'y'),
      `wandb: 🚀 View run exp/trial0 at: ${WANDB_URL}`,
      'wandb: 🚀 View run other at: https://wandb.ai/e/p/runs/other',
    ].join('\n');
    expect(ofType(parseAll(log), 'wandb')).toEqual([
      { type: 'wandb', url: WANDB_URL, time: null },
      { type: 'wandb', url: 'https://wandb.ai/e/p/runs/other', time: null },
    ]);
  });

  it('says offline with the run dir to sync, and nothing for an online run dir', () => {
    const dir = '/fr/logs/root/exp/trial0/wandb/offline-run-20260323_113655-zu3m8pls';
    const log = [
      'wandb: Tracking run with wandb version 0.23.1',
      'wandb: W&B syncing is set to `offline` in this directory. Run `wandb online` or set WANDB_MODE=online to enable cloud syncing.',
      `wandb: Run data is saved locally in ${dir}`,
      'wandb: Run data is saved locally in /fr/wandb/run-20260323_113655-zu3m8pls',
    ].join('\n');
    expect(ofType(parseAll(log), 'wandb')).toEqual([{ type: 'wandb', url: null, dir, offline: true, time: null }]);
  });
});
