// Node discovery of a direct run on a core-only Ray (`pip install ray`, no dashboard): `ray list
// nodes` has no state API to ask, so the nodes come from `ray status -v` (each live node's IP, named
// through the head's resolver) before anything is called unknown; with neither, both reasons are
// said. The simulator's fake ray in its core-only mode (AWRL_SIM_RAY_CORE_ONLY=1), on this machine.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { simInit } from '../../src/sim/init.js';
import { LocalTransport } from '../../src/remote/index.js';
import { directRunNodes } from '../../src/runs/direct-nodes.js';
import type { Target } from '../../src/runs/index.js';
import { ROOT } from './cli-process.js';
import { freePort } from '../harness/sshd.js';

describe('direct-run nodes on a core-only Ray', () => {
  let dir: string;
  let ray: string;
  const t = new LocalTransport();
  const target = (env: string): Target => ({
    name: 'box',
    host: 'local',
    workdir: dir,
    python: 'python3',
    backend: 'direct',
    slurm: { extraArgs: [] },
    setup: `export PATH=${dir}/bin:$PATH ${env}`.trim(),
  });
  const me = hostname().split('.')[0];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-ray-core-'));
    simInit(dir, join(ROOT, 'dist'), ROOT);
    ray = join(dir, 'bin', 'ray');
  });
  afterAll(() => {
    // `ray stop` ends the node process the start left behind (by the PID its registry holds).
    if (ray) execFileSync(ray, ['stop'], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('no cluster at all: both reasons are said, and the nodes are unknown', async () => {
    const d = await directRunNodes(t, target('AWRL_SIM_RAY_CORE_ONLY=1'));
    expect(d.nodes).toEqual([]);
    expect(d.unknown).toMatch(
      /^ray list nodes failed: ConnectionError: Could not find any running Ray instance.*; ray status failed too: ConnectionError: Could not find/,
    );
  });

  it('ray list nodes without the dashboard fails; ray status -v names the node by IP, the head by hostname', async () => {
    const port = await freePort();
    execFileSync(ray, ['start', '--head', `--port=${port}`, '--node-ip-address=127.0.0.1'], { stdio: 'ignore' });
    const list = (() => {
      try {
        execFileSync(ray, ['list', 'nodes', '--format', 'json'], {
          env: { ...process.env, AWRL_SIM_RAY_CORE_ONLY: '1' },
          stdio: 'pipe',
        });
        return 'ok';
      } catch (e) {
        return String((e as { stderr: Buffer }).stderr);
      }
    })();
    expect(list).toContain('pip install ray[default]');
    const core = await directRunNodes(t, target('AWRL_SIM_RAY_CORE_ONLY=1'));
    expect(core.unknown).toBeNull();
    expect(core.nodes).toEqual([me]);
    expect(core.found).toEqual([
      { name: expect.any(String), ip: '127.0.0.1', state: 'ALIVE', head: expect.any(Boolean) },
    ]);
    // The same answer as through the state API, where the dashboard is there.
    const full = await directRunNodes(t, target(''));
    expect(full.nodes).toEqual(core.nodes);
    expect(full.found.map((n) => n.ip)).toEqual(['127.0.0.1']);
  });
});
