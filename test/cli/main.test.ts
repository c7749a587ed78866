import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;

describe('awrl-tui entry point', () => {
  it('prints its version from package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' })).toBe(`awrl-tui ${pkg.version}\n`);
  });

  it('prints help listing every command', () => {
    const out = execFileSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    for (const cmd of ['--demo', '--launch', 'config check', 'parse', 'runs', 'stop', 'watch', 'preflight']) {
      expect(out).toContain(cmd);
    }
  });

  it('rejects an unknown command with exit 2 and no stack trace', () => {
    const r = spawnSync(process.execPath, [BIN, 'frobnicate'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
