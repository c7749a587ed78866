// QA pass: records shaped the way the trainer's own code writes them, where the parser used to
// disagree with trainer.md §5 ("a traceback after an ERROR: header" is trouble; a warning is not).
import { describe, expect, it } from 'vitest';
import { parseAll, rec } from './helpers.js';

const T = '20260601-10:00:00.000';
const BATCH =
  'prepare_batch/rollout: pending_before=2, consumed=16, wait=612.3s, localize+concat=4.1s, total=616.4s, batch_shape=[1093, 15211], n_episodes=128, mmi_len=1093';
// webgym/train.py: `_logger.warning("Could not query cluster capacity", exc_info=True)` when the
// Omniboxes /info endpoint does not answer: Python's logging appends the traceback to the record.
const WARNING_WITH_TRACEBACK = [
  rec(T, 'WebGymTrain', 'WARNING', 'Could not query cluster capacity'),
  'Traceback (most recent call last):',
  '  File "/areal/webgym/train.py", line 52, in query_cluster_capacity',
  '    resp = requests.get(',
  "requests.exceptions.ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=8443): Max retries exceeded",
];

describe('a warning logged with its traceback (exc_info)', () => {
  it('is one warning, not an error, in the controller log', () => {
    const events = parseAll([...WARNING_WITH_TRACEBACK, rec(T, 'RolloutController', 'INFO', BATCH), ''].join('\n'));
    expect(events.map((e) => e.type)).toEqual(['warning', 'batch']);
    expect(events[0]).toMatchObject({
      type: 'warning',
      message: 'Could not query cluster capacity',
      kind: 'other',
      source: 'main',
    });
  });

  it('is one warning, not an error, from a merged.log worker and a Ray-forwarded worker', () => {
    for (const prefix of ['[rollout] ', '(RayRPCServer pid=48213, ip=10.0.0.9) ']) {
      const lines = WARNING_WITH_TRACEBACK.map((l) => prefix + l);
      const events = parseAll([...lines, prefix + rec(T, 'Worker', 'INFO', 'next'), ''].join('\n'));
      expect(events.map((e) => e.type)).toEqual(['warning']);
    }
  });

  it('still reports a crash traceback that comes later, after other lines', () => {
    const events = parseAll(
      [
        ...WARNING_WITH_TRACEBACK,
        'some plain output',
        'Traceback (most recent call last):',
        '  File "/areal/webgym/train.py", line 400, in <module>',
        'ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.',
        '',
      ].join('\n'),
    );
    expect(events.map((e) => e.type)).toEqual(['warning', 'error']);
    expect(events[1]).toMatchObject({ type: 'error', kind: 'ray-actor-died', source: 'main' });
  });

  it('still reports a traceback after an ERROR header', () => {
    const events = parseAll(
      [rec(T, 'RayScheduler', 'ERROR', 'Worker failed'), ...WARNING_WITH_TRACEBACK.slice(1), ''].join('\n'),
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'error', message: 'Worker failed' });
  });
});
