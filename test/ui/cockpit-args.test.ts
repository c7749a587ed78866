// `--check-nodes H1,H2` on the cockpit (`awrl-tui`, `awrl-tui watch RUN`): the other hosts of a
// direct multi-node run reach each target's connection (what the GPU panel and the leftover check
// use), the way cockpit-flow.ts passes the parsed flags: parse -> resolveTargets -> connectTargets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTargets, parseCockpitArgs, resolveTargets } from '../../src/ui/connect.js';

let dir: string;
const saved = process.env.AWRL_TARGETS_FILE;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'awrl-ui-args-'));
  const file = join(dir, 'targets.yaml');
  writeFileSync(
    file,
    `targets:\n  box:\n    host: local\n    workdir: ${dir}\n  box2:\n    host: local\n    workdir: ${dir}\n`,
  );
  process.env.AWRL_TARGETS_FILE = file;
});

afterAll(() => {
  if (saved === undefined) delete process.env.AWRL_TARGETS_FILE;
  else process.env.AWRL_TARGETS_FILE = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe('cockpit --check-nodes', () => {
  it('reaches the connection of the target given, and of every profile without --target', async () => {
    const one = parseCockpitArgs(['watch-me', '--target', 'box', '--check-nodes', 'node2, node3,node2']);
    expect(one.positional).toEqual(['watch-me']);
    const { connections, failures } = await connectTargets(await resolveTargets(one.flags));
    try {
      expect(failures).toEqual([]);
      expect(connections.map((c) => [c.target.name, c.directRunHosts])).toEqual([['box', ['node2', 'node3']]]);
      expect(connections[0].target).not.toHaveProperty('directRunHosts');
    } finally {
      await Promise.all(connections.map((c) => c.transport.close()));
    }
    const all = await resolveTargets(parseCockpitArgs(['--check-nodes=gpu-7']).flags);
    expect(all.map((t) => [t.name, t.directRunHosts])).toEqual([
      ['box', ['gpu-7']],
      ['box2', ['gpu-7']],
    ]);
    expect((await resolveTargets(parseCockpitArgs(['--target', 'box']).flags))[0].directRunHosts).toBeUndefined();
  });

  it('with --config the words after it stay overrides', () => {
    const p = parseCockpitArgs(['--config', 'c.yaml', '--check-nodes', 'node2', 'seed=3']);
    expect(p).toMatchObject({ configFile: 'c.yaml', overrides: ['seed=3'], flags: { directRunHosts: ['node2'] } });
  });

  it('a name that is no host, or none at all, is one clear error', () => {
    expect(() => parseCockpitArgs(['--check-nodes', 'node2,-oProxyCommand=x'])).toThrow(
      "--check-nodes: '-oProxyCommand=x' is not a host name",
    );
    expect(() => parseCockpitArgs(['--check-nodes', 'a b'])).toThrow("--check-nodes: 'a b' is not a host name");
    expect(() => parseCockpitArgs(['--check-nodes', ' , '])).toThrow('--check-nodes needs host names (H1,H2)');
    expect(() => parseCockpitArgs(['--check-nodes'])).toThrow('--check-nodes needs a value');
  });
});

describe('--images on the cockpit', () => {
  it('takes the image modes (auto when not given) and refuses anything else with the list', () => {
    expect(parseCockpitArgs([]).images).toBe('auto');
    expect(parseCockpitArgs(['--images', 'kitty']).images).toBe('kitty');
    expect(() => parseCockpitArgs(['--images', 'png'])).toThrow(
      "--images takes auto|blocks|kitty|sixel|iterm|none, not 'png'",
    );
  });
});
