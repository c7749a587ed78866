// The fast paths equal the general path on every line of every fixture log, also as the log
// reaches a user in other shapes: its colour removed (NO_COLOR, `sed`, a ticket), each line
// forwarded by a Ray worker (its prefix plain, as the worker fast path reads it, or coloured, as
// Ray writes it on a terminal), behind a `docker logs -t` stamp, and lines shared out among
// workers. And on a webgym-like run whose workers write the same WARNING form again and again
// (the form the worker fast path learns, then reads on its bytes).
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { SHARED } from '../harness/fixtures.js';
import { rec, stepRecords } from './helpers.js';
import { expectSamePaths } from './same-paths.js';

const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;
const dir = (d: string) => new URL(`./${d}/`, import.meta.url).pathname;
const logsIn = (d: string) =>
  readdirSync(dir(d))
    .filter((f) => f.endsWith('.log'))
    .map((f) => dir(d) + f);
const FIXTURES = [
  ...['main.log', 'merged.log', 'stdout.log'].map((f) => RUN_A + f),
  dir('golden') + 'edge.log',
  ...logsIn('python-shapes'),
  ...logsIn('round3'),
];

let seed = 11;
const rand = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;

const ESC = '\x1b';
const WORKERS = ['(RayRPCServer pid=48213, ip=10.0.0.9) ', '(RayRPCServer pid=7, ip=10.0.0.8) ', '(pid=77) '];
const perLine = (text: string, f: (line: string, i: number) => string): string =>
  text
    .split('\n')
    .map((l, i) => f(l, i))
    .join('\n');

const VARIANTS: [string, (text: string) => string][] = [
  ['as written', (t) => t],
  ['without colour', (t) => t.replace(/\x1b\[[0-9;]*m/g, '')],
  ['forwarded by one Ray worker', (t) => perLine(t, (l) => WORKERS[0] + l)],
  ['forwarded by a Ray worker, coloured', (t) => perLine(t, (l) => `${ESC}[36m(RayRPCServer pid=5)${ESC}[0m ${l}`)],
  [
    'behind docker logs -t stamps',
    (t) => perLine(t, (l, i) => `2026-05-25T12:19:${String(i % 60).padStart(2, '0')}.123456789Z ${l}`),
  ],
  ['shared out among workers', (t) => perLine(t, (l, i) => (i % 4 === 3 ? l : WORKERS[i % 3] + l))],
  [
    'shared out among workers, without colour',
    (t) => perLine(t.replace(/\x1b\[[0-9;]*m/g, ''), (l, i) => WORKERS[i % 3] + l),
  ],
];

describe('the fast paths equal the general path on every fixture log, in every shape', () => {
  it.each(VARIANTS)('%s', (name, variant) => {
    for (const f of FIXTURES)
      expectSamePaths(Buffer.from(variant(readFileSync(f, 'latin1')), 'latin1'), `${f} ${name}`, rand);
  });
});

/** A webgym run's stdout as the bench writes it (test/bench/areal-log.mjs): steps, and twenty
 *  workers each writing an INFO or, at every tenth, a WARNING record, over and over. */
function webgymRun(steps: number, colour: boolean): string {
  const lines: string[] = [];
  for (let g = 1; g <= steps; g++) {
    const t = `20260525-12:${String(10 + (g % 50)).padStart(2, '0')}:00.000`;
    for (let w = 0; w < 20; w++) {
      const msg =
        w % 10
          ? `episode task=webgym_${g * 20 + w} step=${w}/20 reward=0.5`
          : `[EPISODE_TIMEOUT] task=webgym_${g} elapsed=45.2min — terminating episode`;
      lines.push(
        `(RayRPCServer pid=${48000 + w}, ip=10.0.0.${w % 8}) ` +
          rec(t, 'WebGymWorkflow', w % 10 ? 'INFO' : 'WARNING', msg),
      );
    }
    lines.push(
      stepRecords(t, g, [
        ['rollout/reward', '1.0000e+00'],
        ['timeperf/train_step', 'nan'],
      ]),
    );
  }
  const text = lines.join('\n') + '\n';
  return colour ? text : text.replace(/\x1b\[[0-9;]*m/g, '');
}

describe('the worker fast path reads a WARNING form it learned exactly as the general path does', () => {
  it.each([true, false])('colour %s', (colour) => {
    const events = expectSamePaths(Buffer.from(webgymRun(12, colour)), `webgym colour ${colour}`, rand);
    const warnings = events.filter((e) => e.type === 'warning');
    // Two workers warn every step; each warning is emitted once its worker writes again.
    expect(warnings.length).toBeGreaterThanOrEqual(2 * 11);
    expect(warnings.every((e) => e.type === 'warning' && e.kind === 'episode-timeout' && e.source === 'ray')).toBe(
      true,
    );
    expect(warnings[0]).toMatchObject({ message: expect.stringContaining('— terminating episode') as string });
  });
});
