// The pre-flight probe over a real sshd when a step hangs: a setup line that never returns (a
// `conda activate` on a stuck NFS) is stopped after the step limit and named ("did not finish in
// N s"), and nothing of it is left on the target; a probe cancelled meanwhile (Ctrl-C: the signal
// aborts it) ends on the target too, with everything it started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { evaluateConfig } from '../../src/config/index.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { resolveTarget } from '../../src/runs/index.js';
import { runPreflightReport } from '../../src/preflight/index.js';
import { CONFIG, makeWorld, type World } from './world.js';

let sshd: SshdHandle;
let world: World;
let transport: Transport;

/** PIDs of the processes whose command line contains `marker` (looked at, never matched to kill
 *  anything but what this test started). */
function withMarker(marker: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'latin1').replaceAll('\0', ' ').includes(marker)) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out.filter((p) => p !== process.pid && pidAlive(p));
}

beforeAll(async () => {
  sshd = await startSshd();
  world = makeWorld();
  transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
});

afterAll(async () => {
  for (const m of ['sleep 37.25', 'sleep 41.5']) for (const p of withMarker(m)) process.kill(p, 'SIGKILL');
  await transport?.close();
  await sshd?.stop();
  world?.remove();
});

function probe(setup: string, python: string | undefined, o: { stepLimitS: number; signal?: AbortSignal }) {
  const ev = evaluateConfig({
    fileName: CONFIG,
    text: readFileSync(CONFIG, 'utf8'),
    overrides: world.overrides,
    envNames: ['CPU_CLUSTER_TOKEN'],
  });
  const target = resolveTarget(
    {
      target: sshd.alias,
      sshConfigFile: sshd.sshConfigFile,
      workdir: world.workdir,
      setup,
      ...(python ? { python } : {}),
    },
    {},
  );
  if (typeof target === 'string') throw new Error(target);
  return runPreflightReport(transport, { evaluation: ev, target, envNames: ['CPU_CLUSTER_TOKEN'], ...o });
}

describe('the pre-flight probe when a step hangs', () => {
  it('a setup line that never returns: "did not finish in N s", the rest checked, nothing left running', async () => {
    const started = Date.now();
    const { checks } = await probe(`${world.setup}; sleep 37.25`, undefined, { stepLimitS: 2 });
    const setup = checks.find((c) => c.id === 'setup')!;
    expect(setup).toMatchObject({ result: 'error', seen: 'the setup line did not finish in 2 s (stopped)' });
    expect(setup.todo).toMatch(/stuck NFS/);
    // The probe went on to the other checks (the checkout is there) and did not wait for the sleep.
    expect(checks.find((c) => c.id === 'checkout')?.result).toBe('ok');
    expect(Date.now() - started).toBeLessThan(30_000);
    await waitFor(() => withMarker('sleep 37.25').length === 0, { timeoutMs: 15_000, what: 'the setup line stopped' });
  });

  it('a probe cancelled while a step hangs ends on the target, with what it started', async () => {
    // A Python that hangs (an import on a stuck mount).
    const python = join(world.dir, 'hang-python');
    writeFileSync(python, '#!/bin/sh\nexec sleep 41.5\n');
    chmodSync(python, 0o755);
    const abort = new AbortController();
    const run = probe(world.setup, python, { stepLimitS: 120, signal: abort.signal });
    await waitFor(() => withMarker('sleep 41.5').length > 0, { timeoutMs: 20_000, what: 'the hanging python' });
    // The probe itself is the one whose arguments name this python.
    expect(withMarker(python).length).toBeGreaterThan(0);
    abort.abort();
    await expect(run).rejects.toThrow();
    await waitFor(() => withMarker('sleep 41.5').length === 0 && withMarker(python).length === 0, {
      timeoutMs: 15_000,
      what: 'the probe and its python ended on the target',
    });
  });
});
