// A record header is read on its raw bytes once a header of the same form (the same bytes
// around its timestamp, escape codes included) was read by stripping it: a worker's routine INFO
// lines and the controller's headers (HeaderForms). Lines that only look like a learned form must
// still be judged on their stripped text. For a worker the decision matters because a non-header
// line continues its open record (an error's traceback); for the controller, the logger, level,
// time and message must be what parseHeader gives.
import { describe, expect, it } from 'vitest';
import { parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { rec } from './helpers.js';

const T = '20260525-12:00:00.000';
const W = '(RayRPCServer pid=9, ip=10.0.0.2)';
const ESC = '\x1b';
const enc = new TextEncoder();
const parse = (lines: string[]) => parseLogBytes(enc.encode(lines.join('\n') + '\n'));
const brief = (evs: TrainerEvent[]) =>
  evs.map((e) =>
    e.type === 'error' ? `error:${e.message}|${e.detail}` : `${e.type}:${'message' in e ? e.message : ''}`,
  );

describe('routine headers of a learned form', () => {
  // Teaches the form, then opens an error record that only a routine header (or another header) ends.
  // (A writer's first line makes it known; its second routine line is the one the form is learned from.)
  const teach = [
    `${W} ${rec(T, 'WebGymWorkflow', 'INFO', 'makes the writer known')}`,
    `${W} ${rec(T, 'WebGymWorkflow', 'INFO', 'teaches the form')}`,
  ];
  const open = [...teach, `${W} ${rec(T, 'WebGymWorkflow', 'ERROR', 'boom')}`];

  it('a line of the learned form with another time ends the record, with or without milliseconds', () => {
    for (const stamp of ['20260525-12:00:01.5', '20260525-12:00:01', '20260525-12:00:01.123456']) {
      const evs = parse([...open, `${W} ${rec(stamp, 'WebGymWorkflow', 'INFO', 'next')}`, `${W} tail after`]);
      expect(brief(evs)).toEqual(['error:boom|']);
    }
  });

  it('near misses of the learned form are not routine: their text stays in the traceback', () => {
    const misses = [
      `${W} ${rec('2026052x-12:00:01.000', 'WebGymWorkflow', 'INFO', 'bad date')}`,
      `${W} ${rec('20260525 12:00:01.000', 'WebGymWorkflow', 'INFO', 'bad separator')}`,
      `${W} ${rec(T, 'WebGymWorkflow', 'INFO', 'x').replace('INFO: ', 'INFO:')}`,
      `${W} ${rec(T, 'WebGymWorkflow', 'INFO', 'x').replace('(AReaL)', '(AReaI)')}`,
      `${W} ${rec(`${T}\r`, 'WebGymWorkflow', 'INFO', 'carriage return')}`,
    ];
    for (const miss of misses) {
      const evs = parse([...open, miss, rec(T, 'main', 'WARNING', 'after')]);
      expect(evs[0]).toMatchObject({ type: 'warning', message: 'after' });
      expect(evs[1]?.type).toBe('error');
      expect(evs[1]?.type === 'error' && evs[1].detail).toContain(
        miss
          .slice(W.length + 1)
          .replace(/\x1b\[[0-9;]*m/g, '')
          .slice(0, 20),
      );
    }
  });

  it('another level with the learned head is that level: a WARNING is reported, an ERROR opens', () => {
    const evs = parse([
      ...open,
      `${W} ${rec(T, 'WebGymWorkflow', 'WARNING', 'careful')}`,
      `${W} ${rec(T, 'WebGymWorkflow', 'ERROR', 'second')}`,
      `${W} ${rec(T, 'WebGymWorkflow', 'INFO', 'ok')}`,
    ]);
    expect(brief(evs)).toEqual(['error:boom|', 'warning:careful', 'error:second|']);
  });

  it('escape codes inside the timestamp or another logger are still routine headers (learned anew)', () => {
    const inside = `${W} ${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[37m20260525-12:${ESC}[1m00:01.000 WebGymWorkflow INFO: split stamp`;
    for (const line of [
      inside,
      `${W} ${rec(T, 'RemoteSGLangEngine', 'DEBUG', 'other logger')}`,
      `${W} ${rec(T, 'Web Gym [rank 0]', 'INFO', 'spaces in the name')}`,
    ]) {
      const evs = parse([...open, line, `${W} tail after`]);
      expect(brief(evs)).toEqual(['error:boom|']);
    }
  });

  it('any line after a learned form gives the events it gives when nothing was learned', () => {
    // The teaching lines give no event, so the two parses must agree event for event.
    const lines = [
      `${W} ${rec(T, 'ERROR: x', 'INFO', 'a logger named like a level')}`,
      `${W} ${rec(T, 'WebGymWorkflow', 'INFO', 'y').replace(' INFO: ', ' INFO:: ')}`,
      `${W} ${rec(T, 'WebGymWorkflow', 'INFO', '')}`.replace(/ $/, ''),
      `${W} ${rec(T, 'WebGymWorkflow INFO', 'WARNING', 'level word in the name')}`,
      `${W} ${rec('20260525-12:00:01.', 'WebGymWorkflow', 'INFO', 'dot without digits')}`,
    ];
    for (const line of lines) {
      const rest = [
        `${W} ${rec(T, 'WebGymWorkflow', 'ERROR', 'boom')}`,
        line,
        `${W} continues`,
        rec(T, 'main', 'WARNING', 'after'),
      ];
      expect(brief(parse([...teach, ...rest]))).toEqual(brief(parse(rest)));
    }
  });
});

describe("the controller's record headers of a learned form", () => {
  const teach = [rec(T, 'StatsLogger', 'INFO', 'teaches the form'), rec(T, 'RLTrainer', 'WARNING', 'teaches another')];
  // Each case: lines after the teaching ones give the same events as without them (the teaching
  // lines' own events are dropped from the first parse).
  const cases: [string, string[]][] = [
    [
      'same forms, other times and messages',
      [
        rec('20260525-12:00:01.5', 'StatsLogger', 'INFO', 'Epoch 1/1 Step 1/2 Train step 1/2 done.'),
        rec('20260525-12:00:02', 'RLTrainer', 'WARNING', 'careful: x'),
        rec(
          T,
          'StatsLogger',
          'INFO',
          'Memory-Usage ppo update: memory allocated (GB): 1.00, memory reserved (GB): 2.00, device memory used/total (GB): 3.00/80.00',
        ),
      ],
    ],
    ['a message with escape codes and UTF-8', [rec(T, 'RLTrainer', 'WARNING', `${ESC}[31mred${ESC}[0m — done`)]],
    [
      'the same head, another level',
      [
        rec(T, 'StatsLogger', 'ERROR', 'boom'),
        'Traceback (most recent call last):',
        'RuntimeError: x',
        rec(T, 'StatsLogger', 'INFO', 'after'),
      ],
    ],
    [
      'near misses of the form',
      [
        rec('2026052x-12:00:01.000', 'StatsLogger', 'INFO', 'bad date'),
        rec(T, 'StatsLogger', 'INFO', 'x').replace('INFO: ', 'INFO:'),
        rec(`${T}\r`, 'StatsLogger', 'INFO', 'cr'),
        rec('20260525-12:00:01.', 'StatsLogger', 'INFO', 'dot'),
      ],
    ],
    [
      'a logger named like a level, spaces in names',
      [
        rec(T, 'ERROR: x', 'INFO', 'first level wins'),
        rec(T, 'FSDPEngine Rank 0', 'INFO', 'spaces'),
        rec(T, 'StatsLogger INFO', 'WARNING', 'level word in the name'),
      ],
    ],
    [
      'escape codes inside the timestamp',
      [`${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[37m20260525-12:${ESC}[1m00:01.000 StatsLogger INFO: split`],
    ],
  ];
  for (const [name, lines] of cases) {
    it(name, () => {
      const withForms = parse([...teach, ...lines, rec(T, 'main', 'WARNING', 'end')]).slice(1);
      expect(withForms.map((e) => JSON.stringify(e))).toEqual(
        parse([...lines, rec(T, 'main', 'WARNING', 'end')]).map((e) => JSON.stringify(e)),
      );
    });
  }

  it('a learned form gives the header parseHeader gives', () => {
    const evs = parse([
      ...teach,
      rec('20260525-12:00:03.25', 'RLTrainer', 'WARNING', 'Instance alloc attempt 3 failed'),
    ]);
    expect(evs.at(-1)).toEqual({
      type: 'warning',
      message: 'Instance alloc attempt 3 failed',
      kind: 'omniboxes-alloc',
      time: '2026-05-25T12:00:03.25',
      source: 'main',
    });
  });
});
