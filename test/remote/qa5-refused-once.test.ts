// A refused connection is said once: the headless error used to read
// "cannot reach qa@127.0.0.1:1 at 127.0.0.1:1 (ECONNREFUSED): connect ECONNREFUSED 127.0.0.1:1. Is the host up…"
// (Node's own words repeat the errno and the address). The kind, the facts and the JSON code stay.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), 'awrl-qa5-refused-'));
const cli = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HOME: home },
  });
const count = (s: string, word: string): number => s.split(word).length - 1;

describe('runs against a refused port', () => {
  it('names the errno and the address once, exit 4', () => {
    const r = cli(['runs', '--target', 'qa@127.0.0.1:1', '--workdir', '/tmp']);
    expect(r.status).toBe(4);
    const err = r.stderr.trim();
    expect(err.split('\n')).toHaveLength(1);
    expect(count(err, 'ECONNREFUSED')).toBe(1);
    expect(err).not.toContain('connect ECONNREFUSED');
    expect(err).toContain('cannot reach qa@127.0.0.1:1 (ECONNREFUSED)');
    expect(err).not.toContain('at 127.0.0.1:1');
  });

  it('--json keeps the code, kind facts and errno', () => {
    const r = cli(['runs', '--target', 'qa@127.0.0.1:1', '--workdir', '/tmp', '--json']);
    expect(r.status).toBe(4);
    const j = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(j).toMatchObject({
      type: 'cli-error',
      code: 'host-unreachable',
      host: '127.0.0.1',
      port: 1,
      user: 'qa',
      errno: 'ECONNREFUSED',
    });
    expect(count(String(j.message), 'ECONNREFUSED')).toBe(1);
  });
});
