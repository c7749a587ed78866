// Lines that do not come from Python's logging. PyTorch's NCCL watchdog reports a collective
// timeout through C10 logging (glog-style lines): each rank writes one such line, then aborts.
// trainer.md §5 names the text as a trouble signature; these lines must give an `nccl-timeout`
// error. And awrl-tui's own launcher writes `awrl: attempt N` before each attempt.
import { describe, expect, it } from 'vitest';
import { JsonLinesParser, eventToJsonLine, parseLogBytes } from '../../src/trainer-log/index.js';
import { rec } from './helpers.js';

const T = '20260525-12:00:00.000';
const enc = new TextEncoder();
const NEW =
  '[rank3]:[E1129 12:01:02.123456 1234 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=8812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=7200000) ran for 7200045 milliseconds before timing out.';
const OLD =
  '[E ProcessGroupNCCL.cpp:475] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800412 milliseconds before timing out.';
const ABORT = [
  "terminate called after throwing an instance of 'c10::DistBackendError'",
  `  what():  [PG 0 (default_pg) Rank 3] Process group watchdog thread terminated with exception: ${NEW.slice(NEW.indexOf('[Rank'))}`,
  'Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):',
  'frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f3a in /usr/lib/python3/dist-packages/torch/lib/libc10.so)',
];

const errors = (text: string) => parseLogBytes(enc.encode(text)).filter((e) => e.type === 'error');

describe('C10 watchdog lines', () => {
  it("a rank's watchdog timeout line is one nccl-timeout error, in both formats and with every prefix", () => {
    const lines = [
      rec(T, 'RLTrainer', 'INFO', 'step'),
      NEW,
      ...ABORT,
      `(RayRPCServer pid=77, ip=10.0.0.3) ${NEW}`,
      `[actor]   ${OLD}`,
      '',
    ];
    const evs = errors(lines.join('\n'));
    expect(evs.map((e) => e.type === 'error' && [e.kind, e.source, e.message])).toEqual([
      ['nccl-timeout', 'main', NEW],
      ['nccl-timeout', 'ray', NEW],
      ['nccl-timeout', 'actor', OLD],
    ]);
  });

  it("the JSON line is the event's", () => {
    const text = `${NEW}\n`;
    const p = new JsonLinesParser();
    const out = Buffer.concat([p.push(enc.encode(text)), p.end()]).toString('utf8');
    expect(out).toBe(
      parseLogBytes(enc.encode(text))
        .map((e) => eventToJsonLine(e) + '\n')
        .join(''),
    );
    expect(JSON.parse(out)).toMatchObject({ type: 'error', kind: 'nccl-timeout', time: null });
  });

  it("inside an open ERROR record the line is that record's detail, not a second error", () => {
    const evs = errors(
      [rec(T, 'Worker', 'ERROR', 'collective failed'), NEW, rec(T, 'RLTrainer', 'INFO', 'next'), ''].join('\n'),
    );
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({ message: 'collective failed', kind: 'nccl-timeout' });
  });

  it('the text anywhere else is not a C10 line: no error', () => {
    const evs = errors(
      [
        '[step_level_adv] Watchdog caught collective operation timeout: just a message',
        '[I ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: an info line',
        'Watchdog caught collective operation timeout',
        '',
      ].join('\n'),
    );
    expect(evs).toEqual([]);
  });
});

describe("the launcher's attempt marker", () => {
  it('ends what the crashed attempt left open: its error keeps only its own lines', () => {
    const log = [
      rec(T, 'RLTrainer', 'ERROR', 'Training step failed'),
      'Traceback (most recent call last):',
      '  File "train.py", line 1, in <module>',
      'RuntimeError: CUDA error: an illegal memory access was encountered',
      '(RayRPCServer pid=7, ip=10.0.0.1) ' + rec(T, 'W', 'ERROR', 'worker died'),
      'awrl: attempt 2',
      'some text the new process prints before its first record',
      rec(T, 'Recover', 'INFO', 'Recovering from StepInfo(epoch=0, epoch_step=6, global_step=6, steps_per_epoch=16).'),
      '',
    ].join('\n');
    const evs = parseLogBytes(enc.encode(log));
    expect(evs.map((e) => e.type)).toEqual(['error', 'error', 'resume']);
    const [trainer, worker] = evs;
    expect(trainer).toMatchObject({ message: 'Training step failed', source: 'main' });
    expect(trainer.type === 'error' && trainer.detail).toBe(
      [
        'Traceback (most recent call last):',
        '  File "train.py", line 1, in <module>',
        'RuntimeError: CUDA error: an illegal memory access was encountered',
      ].join('\n'),
    );
    expect(worker).toMatchObject({ message: 'worker died', source: 'ray' });
  });
});
