// The headless commands' --json error line, as a script sees it from the built CLI (bin/awrl-tui.js,
// needs dist/ built): a failed connection's facts are fields of the one `cli-error` line, after the
// five every error line has, so a script checks the fingerprint or removes the known_hosts line
// without parsing the message. Real sshd; the secret in the environment never shows.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { startCli } from '../runs/cli-process.js';
import { freePort, type SshdHandle } from '../harness/sshd.js';
import {
  clientConfig,
  knownHostsLine,
  startSshdPair,
  writeKnownHosts,
  type SshdPair,
} from '../harness/ssh-variants.js';

const SECRET = `facts-sentinel-${process.pid}-Zx9`;

describe('the --json error line carries the connection failure facts', () => {
  let pair: SshdPair;
  let s: SshdHandle;
  beforeAll(async () => {
    pair = await startSshdPair();
    s = pair.s;
  });
  afterAll(async () => {
    await pair?.stop();
  });

  /** Runs the CLI to its end; returns its exit code, its one JSON error line, and stderr. */
  async function cli(args: string[]): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
    const p = startCli([...args, '--json'], { CPU_CLUSTER_TOKEN: SECRET });
    const code = await p.done;
    expect(p.stdout + p.stderr).not.toContain(SECRET);
    const lines = p.stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{"type":"cli-error"'));
    expect(lines, p.stdout + p.stderr).toHaveLength(1);
    return { code, json: JSON.parse(lines[0]), stderr: p.stderr };
  }

  it('runs: an unknown host key gives host, port and the fingerprint; a changed one the known_hosts line', async () => {
    const unknown = clientConfig(s, 'cli-unknown', { knownHostsFile: writeKnownHosts(s, 'cli_unknown', '') });
    const a = await cli(['runs', '--target', 'cli-unknown', '-F', unknown, '--workdir', '/w']);
    expect(a.code).toBe(2);
    expect(Object.keys(a.json).slice(0, 5)).toEqual(['type', 'exit', 'code', 'message', 'hint']);
    expect(a.json).toMatchObject({
      type: 'cli-error',
      exit: 2,
      code: 'host-key-unknown',
      alias: 'cli-unknown',
      host: s.host,
      port: s.port,
      fingerprint: s.hostKeyFingerprint,
    });
    expect(a.stderr).toContain(`awrl-tui: ${a.json.message}`);

    const kh = writeKnownHosts(s, 'cli_changed', `${knownHostsLine(s, pair.other.hostPublicKey)}\n`);
    const changed = clientConfig(s, 'cli-changed', { knownHostsFile: kh });
    const b = await cli(['runs', '--target', 'cli-changed', '-F', changed, '--workdir', '/w']);
    expect(b.code).toBe(2);
    expect(b.json).toMatchObject({
      code: 'host-key-mismatch',
      knownHostsFile: kh,
      knownHostsLine: 1,
      fingerprint: s.hostKeyFingerprint,
    });
  }, 60_000);

  it('stop: a refused port gives host, port and ECONNREFUSED', async () => {
    const port = await freePort();
    const cfg = clientConfig(s, 'cli-refused', { port });
    const r = await cli([
      'stop',
      'nosuch-20260101-000000-abcd',
      '--target',
      'cli-refused',
      '-F',
      cfg,
      '--workdir',
      '/w',
    ]);
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({
      exit: 4,
      code: 'host-unreachable',
      host: s.host,
      port,
      errno: 'ECONNREFUSED',
      sshConfigFile: cfg,
    });
    expect(r.json).not.toHaveProperty('fingerprint');
  }, 60_000);

  it('an error that is not a connection failure has no facts: the five fields only', async () => {
    const r = await cli(['runs', '--target', 'x', '-F', join(s.dir, 'nope'), '--no-such-option']);
    expect(r.code).toBe(2);
    expect(Object.keys(r.json)).toEqual(['type', 'exit', 'code', 'message', 'hint']);
  }, 30_000);
});
