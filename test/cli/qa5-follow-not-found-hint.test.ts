// `follow RUN` for a run that does not exist, over a real sshd: the --json cli-error line carried
// `"hint":""` with the advice inside `message`. The advice (how to list the runs) goes in `hint`;
// the code stays `run-not-found`, and the human line still says where it looked and what to run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';

const RUN = 'no-such-run-20260101-000000-abcd';
let env: SimOverSshd;
const started: CliProcess[] = [];
const cli = (args: string[]): CliProcess => {
  const p = startCli(args, {});
  started.push(p);
  return p;
};

beforeAll(async () => {
  env = await startSimOverSshd('awrl-qa5-follow-');
}, 60_000);
afterAll(async () => {
  for (const p of started)
    if (p.child.pid && p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await env?.stop();
});

describe('follow of an unknown run', { timeout: 60_000 }, () => {
  it('--json: the advice is in hint, not in message; code run-not-found, exit 2', async () => {
    const p = cli(['follow', RUN, ...env.target(), '--json']);
    expect(await p.done, p.stderr).toBe(2);
    const j = JSON.parse(p.stdout.trim().split('\n').pop()!) as {
      type: string;
      code: string;
      message: string;
      hint: string;
    };
    expect(j.type).toBe('cli-error');
    expect(j.code).toBe('run-not-found');
    expect(j.message).toContain(`no run ${RUN} on`);
    expect(j.message).not.toContain('awrl-tui runs');
    expect(j.hint).toMatch(/^list them with: awrl-tui runs --target /);
  });

  it('the human line still names where it looked and how to list the runs, in one line', async () => {
    const p = cli(['follow', RUN, ...env.target()]);
    expect(await p.done).toBe(2);
    const lines = p.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`no run ${RUN} on`);
    expect(lines[0]).toContain('awrl-tui runs --target');
  });
});
