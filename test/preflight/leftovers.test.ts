// Leftover sweep over the real sshd: only processes carrying the run's tag are stopped; GPU holders
// without it are listed, never touched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { findLeftovers, formatLeftovers, stopLeftovers } from '../../src/preflight/index.js';
import { makeWorld, type World } from './world.js';

let sshd: SshdHandle;
let transport: Transport;
let world: World;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sshd = await startSshd();
  transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
  world = makeWorld();
});

afterAll(async () => {
  for (const c of children) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
  await transport?.close();
  await sshd?.stop();
  world?.remove();
});

async function holder(tag: string | null, ignoreTerm = false): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.AWRL_RUN_ID;
  if (tag) env.AWRL_RUN_ID = tag;
  const c = ignoreTerm
    ? spawn('bash', ['-c', 'trap "" TERM; while :; do sleep 1; done'], { env, stdio: 'ignore' })
    : spawn('sleep', ['300'], { env, stdio: 'ignore' });
  children.push(c);
  await waitFor(() => pidAlive(c.pid!), { what: `process ${c.pid}` });
  return c.pid!;
}

describe('leftover sweep', () => {
  it('lists tagged processes and GPU holders, and stops only the tagged ones', async () => {
    const mine = await holder('20260529-run-mine');
    const stubborn = await holder('20260529-run-mine', true);
    const other = await holder('20260529-run-other');
    const untagged = await holder(null);
    world.setApps([
      `${other}, GPU-10000000-1111-2222-3333-444444444444, 20000, sleep`,
      `${untagged}, GPU-20000000-1111-2222-3333-444444444444, 1000, sleep`,
    ]);
    const setup = world.setup;
    const found = await findLeftovers(transport, '20260529-run-mine', { setup });
    const byPid = new Map(found.map((l) => [l.pid, l]));
    expect(byPid.get(mine)).toMatchObject({ tagged: true, cmd: 'sleep 300 ' });
    expect(byPid.get(stubborn)?.tagged).toBe(true);
    expect(byPid.get(other)).toMatchObject({ tagged: false, otherRunId: '20260529-run-other', gpuMiB: 20000 });
    expect(byPid.get(untagged)).toMatchObject({ tagged: false, otherRunId: null, gpuMiB: 1000 });
    expect(formatLeftovers([byPid.get(other)!])).toMatch(new RegExp(`^PID ${other} \\(\\w+\\) sleep 300 — 20000 MiB GPU \\[leftover of run 20260529-run-other\\]$`));

    const report = await stopLeftovers(transport, '20260529-run-mine', { setup, graceSeconds: 1 });
    expect(report.stopped.map((l) => l.pid).sort()).toEqual([mine, stubborn].sort());
    await waitFor(() => !pidAlive(mine) && !pidAlive(stubborn), { what: 'tagged processes to be gone' });
    expect(pidAlive(other)).toBe(true);
    expect(pidAlive(untagged)).toBe(true);
    expect(report.remaining.map((l) => l.pid).sort()).toEqual([other, untagged].sort());
  });

  it('a run id is never used as a pattern', async () => {
    const dotted = await holder('20260529.run');
    const near = await holder('20260529xrun'); // would match the regex 20260529.run
    const found = await findLeftovers(transport, '20260529.run');
    expect(found.filter((l) => l.tagged).map((l) => l.pid)).toEqual([dotted]);
    expect(found.some((l) => l.pid === near)).toBe(false);
    await expect(findLeftovers(transport, 'x; rm -rf /')).rejects.toThrow(/is not a run id/);
  });
});
