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
    for (const cmd of ['--demo', '--launch', 'config check', 'parse', 'runs', 'stop', 'watch', 'follow', 'preflight']) {
      expect(out).toContain(cmd);
    }
  });

  it('rejects an unknown command with exit 2 and no stack trace', () => {
    const r = spawnSync(process.execPath, [BIN, 'frobnicate'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // With --json, the same failure is one JSON line on stdout (main.ts answers for every command).
    const j = spawnSync(process.execPath, [BIN, 'frobnicate', '--json'], { encoding: 'utf8' });
    expect(j.status).toBe(2);
    expect(JSON.parse(j.stdout)).toMatchObject({ type: 'cli-error', exit: 2, code: 'usage' });
    expect(j.stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe('the end of a command', () => {
  const STDIO = new URL('../../dist/cli/stdio.js', import.meta.url).href;
  // Like main.ts: print a lot, flushStdio, process.exit. The reader starts late, so most of the
  // output is still queued in the process when it exits.
  const script = `const { flushStdio } = await import(${JSON.stringify(STDIO)});
    for (let i = 0; i < 20000; i++) process.stdout.write('line ' + i + ' ' + 'x'.repeat(60) + '\\n');
    await flushStdio();
    process.exit(0);`;

  it('hands a slow pipe reader every byte before process.exit', () => {
    const r = spawnSync(
      '/bin/sh',
      ['-c', '"$0" --input-type=module -e "$1" | (sleep 0.5; wc -l)', process.execPath, script],
      { encoding: 'utf8' },
    );
    expect(r.stdout.trim()).toBe('20000');
  });

  it('ends quietly when the reader goes away early', () => {
    const r = spawnSync(
      '/bin/sh',
      ['-c', '"$0" --input-type=module -e "$1" | head -c 10 > /dev/null; echo "rc=$?"', process.execPath, script],
      { encoding: 'utf8' },
    );
    expect(r.stdout.trim()).toBe('rc=0');
    expect(r.stderr).toBe('');
  });
});
