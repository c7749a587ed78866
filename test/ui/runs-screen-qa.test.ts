// QA defects on the Runs screen, as a person at an 80x24 or 60x20 terminal saw them: the head line
// of a target that could not connect was cut (the port and the error kind lost), and a run's
// "last step" age showed `—` until the run was opened although its step was known.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunRecord, RunSummary as RunsSummary } from '../../src/runs/index.js';
import { parseLogBytes } from '../../src/trainer-log/parser.js';
import { toSummary } from '../../src/session/runs-list.js';
import { ConnectFailure } from '../../src/remote/connect-failure.js';
import { connectProblem } from '../../src/session/connect-advice.js';
import { lineText } from '../../src/ui/lines.js';
import { runsLines } from '../../src/ui/screens/runs.js';
import type { TargetSummary } from '../../src/session/types.js';

function failed(name: string, failure: ConnectFailure): TargetSummary {
  return {
    name,
    connection: { state: 'failed' } as TargetSummary['connection'],
    runs: [],
    connectProblem: connectProblem(name, failure),
  };
}

const refused = failed(
  'refused',
  new ConnectFailure(
    'unreachable',
    'cannot reach qa@127.0.0.1:1 at 127.0.0.1:1 (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:1',
    {
      alias: 'qa-gpu-refused',
      user: 'qa',
      host: '127.0.0.1',
      port: 1,
      errno: 'ECONNREFUSED',
    },
  ),
);
const nodns = failed(
  'nodns',
  new ConnectFailure(
    'unreachable',
    'cannot reach nosuchhost-qa5.invalid at nosuchhost-qa5.invalid:22 (ENOTFOUND): getaddrinfo ENOTFOUND',
    {
      alias: 'nosuchhost-qa5.invalid',
      host: 'nosuchhost-qa5.invalid',
      port: 22,
      jumpHost: 'bastion.example.org',
      errno: 'ENOTFOUND',
    },
  ),
);

describe('Runs screen: a target that could not connect', () => {
  for (const [width, height] of [
    [80, 24],
    [60, 20],
  ]) {
    it(`says what happened whole at ${width}x${height}, wrapped, never cut`, () => {
      const text = runsLines([refused, nodns], 0, Date.now(), width, height).map(lineText);
      // The title and the column header are the screen's own; the rows below are the targets'.
      for (const l of text.slice(2)) expect([...l].length).toBeLessThanOrEqual(width);
      const joined = text.join(' ').replace(/\s+/g, ' ');
      for (const t of [refused, nodns]) {
        const p = t.connectProblem!;
        // Longer than the screen: the case the QA pass saw cut.
        expect(`${t.name}  not connected: ${p.what}`.length).toBeGreaterThan(width);
        expect(joined).toContain(`${t.name} not connected: ${p.what}`.replace(/\s+/g, ' '));
        expect(joined).toContain(`what to do: ${p.todo}`.replace(/\s+/g, ' '));
      }
      expect(joined).toContain('127.0.0.1:1 (ECONNREFUSED)');
      expect(joined).toContain('nosuchhost-qa5.invalid:22');
      expect(text.some((l) => l.includes('…'))).toBe(false);
    });
  }
});

describe("Runs screen: the last step's age before the run is opened", () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-qaui-laststep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the listed run row shows the age of the last step the list read from the log tail', async () => {
    // A log written by the trainer's own logging code (the shared fixture): src/runs' list reads its tail.
    const fixture = '/work/shared/fixtures/areal-logs/run-a/stdout.log';
    const steps = parseLogBytes(readFileSync(fixture)).filter((e) => e.type === 'step');
    const last = steps.at(-1)!;
    expect(last.type).toBe('step');
    if (last.type !== 'step') return;
    const listed = {
      runId: 'run-a',
      record: { runDir: dir } as RunRecord,
      state: 'running',
      detail: '',
      globalStep: last.globalStep,
      lastStepAt: last.time,
      totalSteps: last.totalSteps,
      lastReward: 0.1472,
    } as RunsSummary;
    const summary = toSummary(listed, 'here');
    expect(summary.lastStepAt).toBe(Date.parse(last.time));
    const target: TargetSummary = { name: 'here', connection: { state: 'ready' }, runs: [summary] };
    const row = runsLines([target], 0, summary.lastStepAt! + 7000, 100, 20)
      .map(lineText)
      .find((l) => l.includes('run-a'))!;
    expect(row).toContain(`${last.globalStep}/${last.totalSteps}`);
    expect(row).toMatch(/0\.1472\s+7 s ago$/);
    // A listing with no step yet has no age.
    expect(toSummary({ ...listed, globalStep: undefined, lastStepAt: undefined }, 'here').lastStepAt).toBeNull();
  });
});

describe("Runs screen: the run's sentinel on a full disk", () => {
  /** The sentinel's segment of the run's row, as drawn. */
  const segment = (targets: TargetSummary[]) =>
    runsLines(targets, 0, Date.now(), 100, 20)
      .flatMap((l) => (typeof l === 'string' ? [] : l))
      .find((seg) => seg.t.includes('sentinel ok'))!;

  it('says it as `runs` does, in warning colour', () => {
    const listed = {
      runId: 'run-full',
      record: { runDir: '/w/.awrl/runs/run-full' } as RunRecord,
      state: 'running',
      detail: '',
      sentinel: {
        state: 'running',
        pid: 42,
        heartbeatAt: '2026-12-05T10:02:20.000Z',
        notify: [],
        ageS: 12,
        disk: { state: 'full', since: '2026-12-05T10:02:11.000Z', path: '/w/r/sentinel.json', error: 'ENOSPC' },
      },
    } as RunsSummary;
    const target = (r: RunsSummary): TargetSummary[] => [
      { name: 'here', connection: { state: 'ready' }, runs: [toSummary(r, 'here')] },
    ];
    const full = segment(target(listed));
    expect(full.t.trim()).toBe('sentinel ok, 12 s ago · disk full since 10:02:11Z (ENOSPC)');
    expect(full.c).toBe('warn');
    // Beating with room: dim, as before.
    const ok = segment(target({ ...listed, sentinel: { ...listed.sentinel!, disk: undefined } }));
    expect(ok.t.trim()).toBe('sentinel ok, 12 s ago');
    expect(ok.c).toBe('dim');
  });
});
