// `runs --json` for a run launched once (never resumed): its one attempt's lastStep/lastStepAt were
// null while the top-level globalStep was 10, because the chain script reads only resumed runs' logs.
// The last attempt now takes the step the run's log tail already gave (pure: the list script's output).
import { describe, expect, it } from 'vitest';
import { buildChain, emptyFacts } from '../../src/runs/attempt-chain.js';
import { parseListOutput } from '../../src/runs/list.js';

const ESC = '\x1b';
const line = (time: string, logger: string, msg: string) =>
  `${ESC}[92m${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[92m${time} ${logger}: ${msg}${ESC}[0m`;
// A step as the trainer logs it: the done line, then its stats table (the parser's step event needs both).
const stepDone = (t: string, g: number) =>
  [
    line(t, 'StatsLogger INFO', `Epoch 1/1 Step ${g}/40 Train step ${g}/40 done.`),
    line(t, 'StatsLogger INFO', 'Stats (1/1):'),
    `${ESC}[92m${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[92m${t} StatsLogger INFO: `,
    '╒════════════════╤════════════╕\n│ rollout/reward │ 4.5000e-01 │\n╘════════════════╧════════════╛' + `${ESC}[0m`,
  ].join('\n');

const runJson = (attempts: unknown[]) =>
  JSON.stringify({
    version: 1,
    runId: 'r1',
    experiment: 'e',
    trial: 't',
    target: 'h',
    workdir: '/w',
    runDir: '/w/.awrl/runs/r1',
    backend: 'direct',
    argv: ['python3'],
    secretNames: [],
    createdAt: '2026-11-29T10:00:00.000Z',
    attempts,
  });
const tail = (text: string) => Buffer.from(`==> /w/.awrl/runs/r1/stdout.log <==\n${text}`).toString('base64');

function listText(attempts: unknown[], log: string): string {
  return (
    [`@@run\tr1`, `@@json\t${runJson(attempts)}`, `@@alive\t0`, `@@exit\t0`, `@@tails\t${tail(log)}`].join('\n') + '\n'
  );
}

describe('a single-attempt run in runs --json', () => {
  const one = [{ n: 1, reason: 'launch', startedAt: '2026-11-29T10:00:00.000Z', pid: 4242 }];
  const log = `partial line of an earlier step\n${stepDone('20261129-10:05:00.000', 9)}\n${stepDone('20261129-10:06:30.250', 10)}\n`;

  it('its attempt carries the last step and its time, as the top-level globalStep does', () => {
    const [r] = parseListOutput(listText(one, log));
    expect(r.globalStep).toBe(10);
    const chain = buildChain(r.record, r.state, { slurm: {}, slurmExit: {}, exitCode: 0 }, emptyFacts(), r);
    expect(chain).toHaveLength(1);
    expect(chain[0]).toMatchObject({
      n: 1,
      lastStep: 10,
      lastStepAt: '2026-11-29T10:06:30.250',
      resumedFromStep: null,
    });
  });

  it('a run with no step yet keeps null', () => {
    const [r] = parseListOutput(listText(one, 'no steps here\n'));
    const chain = buildChain(r.record, r.state, { slurm: {}, slurmExit: {} }, emptyFacts(), r);
    expect(chain[0]).toMatchObject({ lastStep: null, lastStepAt: null });
  });

  it('a resumed run whose log could not be matched does not lend the tail step to its last attempt', () => {
    const two = [...one, { n: 2, reason: 'resume', startedAt: '2026-11-29T11:00:00.000Z', pid: 4343 }];
    const [r] = parseListOutput(listText(two, log));
    const chain = buildChain(r.record, r.state, { slurm: {}, slurmExit: {} }, emptyFacts(), r);
    expect(chain.map((a) => a.lastStep)).toEqual([null, null]);
  });
});
