// One prefix grammar (header.ts matchLinePrefix/rankPrefixLength), read by the parser and by the log
// pane: on every real shape below both name the same writer. The shapes are as the writers print them:
// merged.log's `f"[{role}]".ljust(10)`, Ray's print_worker_logs (`(<who>[, ip=…]) `, who being a worker's
// `[name ]pid=N`, `raylet`, `pid=gcs_server`, `autoscaler +1m2s`), Ray's dedup note, torchrun's `[rankN]: `.
import { describe, expect, it } from 'vitest';
import { LogLineReader, parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { matchLinePrefix } from '../../src/trainer-log/header.js';
import { rec } from './helpers.js';

const T = '20260525-12:00:00.000';
const enc = new TextEncoder();
const ESC = '\x1b';

/** [label, prefix as written, its key (null: the controller's own line), event source]. */
const WRITERS: [string, string, string | null, string][] = [
  ['the controller, unprefixed', '', null, 'main'],
  ["merged.log's controller", '[main]    ', '[main]', 'main'],
  ['a merged.log worker', '[rollout] ', '[rollout]', 'rollout'],
  ['a merged.log worker, short tag', '[actor]   ', '[actor]', 'actor'],
  ['a merged.log tag of 10+ (no space)', '[eval-rollout]', '[eval-rollout]', 'eval-rollout'],
  [
    'a Ray actor on another node',
    '(RayRPCServer pid=48213, ip=10.0.0.9) ',
    '(RayRPCServer pid=48213, ip=10.0.0.9)',
    'ray',
  ],
  ["a Ray actor on the driver's node", '(RayRPCServer pid=48213) ', '(RayRPCServer pid=48213)', 'ray'],
  ['a Ray task without a name', '(pid=1085326) ', '(pid=1085326)', 'ray'],
  ['a Ray actor with a custom repr', '(MyActor(index=2) pid=482120) ', '(MyActor(index=2) pid=482120)', 'ray'],
  ['a Ray task method', '(Foo.bar pid=7, ip=10.0.0.2) ', '(Foo.bar pid=7, ip=10.0.0.2)', 'ray'],
  ['the local raylet', '(raylet) ', '(raylet)', 'ray'],
  ['a remote raylet', '(raylet, ip=10.0.0.1) ', '(raylet, ip=10.0.0.1)', 'ray'],
  ["Ray's GCS server", '(pid=gcs_server) ', '(pid=gcs_server)', 'ray'],
  ["Ray's autoscaler", '(autoscaler +1m2s) ', '(autoscaler +1m2s)', 'ray'],
  ["a later Ray's scheduler", '(scheduler +2h0m3s) ', '(scheduler +2h0m3s)', 'ray'],
  ['an IPv6 node', '(RayRPCServer pid=9, ip=fe80::1) ', '(RayRPCServer pid=9, ip=fe80::1)', 'ray'],
  [
    'a Ray prefix in colour',
    `${ESC}[2m${ESC}[36m(RayRPCServer pid=7, ip=10.0.0.2)${ESC}[0m `,
    '(RayRPCServer pid=7, ip=10.0.0.2)',
    'ray',
  ],
  ["torchrun's rank", '[rank0]: ', null, 'main'],
  ["torchrun's rank in merged.log", '[actor]   [rank1]: ', '[actor]', 'actor'],
  ["torchrun's rank behind Ray", '(RayRPCServer pid=1) [rank3]: ', '(RayRPCServer pid=1)', 'ray'],
];

/** Lines that start like a prefix and are the controller's own text. */
const NOT_PREFIXES = [
  '[step] eps=128', // a controller continuation: merged.log pads exactly
  '[main] x', // the same
  '(AReaL) 20260525-12:00:00.000 L INFO: x',
  '(see below) for details', // no pid, not one of Ray's processes
  '(pid=abc) x',
  '(raylet)x', // Ray always writes one space after the prefix
  '[rank0]:[W1004 01:37:03.193 ProcessGroupNCCL.cpp:1538] Warning: x', // c10's own glog header
];

const ERROR_LINES = (p: string) => [
  p + rec(T, 'Worker', 'ERROR', 'boom'),
  p + 'Traceback (most recent call last):',
  p + '  File "a.py", line 1, in f',
  p + 'ValueError: x',
];

function paneLines(text: string) {
  const r = new LogLineReader();
  return [...r.push(enc.encode(text)), ...r.end()];
}
const errorsOf = (evs: TrainerEvent[]) => evs.filter((e) => e.type === 'error');

describe('the one line-prefix grammar', () => {
  it.each(WRITERS)('%s: the grammar names its writer', (_l, prefix, key, source) => {
    const line = (prefix + 'hello').replace(/\x1b\[[0-9;]*m/g, '');
    const p = matchLinePrefix(line);
    if (key === null) expect(p === null || p.source === 'main').toBe(true);
    else expect(p && { key: p.key, source: p.source }).toEqual({ key, source });
  });

  it.each(NOT_PREFIXES)('%s: no writer prefix', (line) => {
    const p = matchLinePrefix(line);
    expect(p).toBeNull();
  });

  it.each(WRITERS)('%s: parser and pane agree on an error record and its traceback', (_l, prefix, key, source) => {
    const log = [...ERROR_LINES(prefix), rec(T, 'Ctl', 'INFO', 'next'), ''].join('\n');
    const errs = errorsOf(parseLogBytes(enc.encode(log)));
    expect(errs.map((e) => e.type === 'error' && [e.message, e.source])).toEqual([['boom', source]]);
    // The pane: the four lines are the error's (one writer), the controller's next record is not.
    expect(paneLines(log).map((l) => l.level)).toEqual(['error', 'error', 'error', 'error', 'info']);
    // A stats table under the prefix is that writer's (its summary line is named by the key).
    const table = ['╒═══╤═══╕', '│ a │ 1 │', '╘═══╧═══╛'].map((l) => prefix + l).join('\n') + '\n';
    const shown = key && source !== 'main' ? key + ' ' : '';
    expect(paneLines(table).map((l) => l.text)).toEqual([`${shown}  [stats table: 1 keys]`]);
  });

  it.each(WRITERS.filter((w) => w[3] !== 'main'))(
    "%s: its lines do not join the controller's open error, in the parser or the pane",
    (_l, prefix) => {
      const log = [rec(T, 'Ctl', 'ERROR', 'ctl failed'), prefix + 'unrelated worker output', ''].join('\n');
      const errs = errorsOf(parseLogBytes(enc.encode(log)));
      expect(errs.map((e) => e.type === 'error' && (e.detail ?? ''))).toEqual(['']);
      expect(paneLines(log).map((l) => l.level)).toEqual(['error', 'info']);
    },
  );

  // (c10's glog line is a record of its own to the pane, which knows more heads than the parser.)
  it.each(NOT_PREFIXES.filter((l) => !l.startsWith('(AReaL)') && !l.startsWith('[rank0]:[')))(
    "%s: continues the controller's open error in the parser and the pane",
    (line) => {
      const log = [rec(T, 'Ctl', 'ERROR', 'ctl failed'), line, ''].join('\n');
      const errs = errorsOf(parseLogBytes(enc.encode(log)));
      expect(errs.map((e) => e.type === 'error' && e.detail)).toEqual([line]);
      expect(paneLines(log).map((l) => l.level)).toEqual(['error', 'error']);
    },
  );

  it("Ray's dedup note (with its once-only advice) does not change whose line it is, nor a record's end", () => {
    const ray = '(RayRPCServer pid=1, ip=10.0.0.2) ';
    const note =
      ' [repeated 7x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log' +
      ' deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html' +
      '#log-deduplication for more options.)';
    const log = [
      ray + rec(T, 'W', 'WARNING', 'slow episode') + note,
      ray + 'TaskMonitor dashboard running',
      '(raylet) [2026-04-10 21:59:58,986 I 2922 2922] logging.cc:303: Set ray log level' + note,
      '',
    ].join('\n');
    const evs = parseLogBytes(enc.encode(log)).filter((e) => e.type === 'warning');
    // The message is kept as printed (the note says how often); the record ends at its reset.
    expect(evs.map((e) => e.type === 'warning' && [e.message.slice(0, 42), e.source, e.detail])).toEqual([
      ['slow episode [repeated 7x across cluster] ', 'ray', undefined],
    ]);
    expect(paneLines(log).map((l) => l.level)).toEqual(['warning', 'info', 'info']);
  });
});
