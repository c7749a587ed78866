// A value with a line break (a block scalar `seed: |` + ` bad`) is quoted in the diagnostic the way
// Python's repr shows it ('bad\n'), so every diagnostic stays one line: scripts and the cockpit read
// `file:line:col: severity code message` per line.
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatDiagnostic } from '../../src/config/index.js';
import { evaluate, REFERENCE } from './helpers.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'awrl-qa5-diag-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const withSeed = (block: string): string => REFERENCE.replace(/^seed: 1$/m, block);

describe('diagnostics with a multi-line value stay one line', () => {
  it("seed: | + ' bad' gives one line quoting 'bad\\n'", () => {
    const text = withSeed('seed: |\n bad');
    const errs = evaluate(text, []).diagnostics.filter((d) => d.severity === 'error');
    expect(errs.length).toBeGreaterThan(0);
    const line = formatDiagnostic(errs[0], 'c.yaml');
    expect(line).not.toMatch(/[\n\r]/);
    expect(line).toContain("Value 'bad\\n' of type 'str'");
    expect(line).toMatch(/^\S+\.yaml:13:1: error type-mismatch /);
  });

  it('tabs, carriage returns and other control characters are escaped as repr escapes them', () => {
    const line = formatDiagnostic(
      { severity: 'error', code: 'type-mismatch', message: "Value 'a\tb\r\x01\u2028' of type 'str'", line: 1 },
      'c.yaml',
    );
    expect(line).toBe("c.yaml:1:1: error type-mismatch Value 'a\\tb\\r\\x01\\u2028' of type 'str'");
  });

  it('the built CLI: config check prints the error in one line, exit 2', () => {
    const f = join(tmp, 'seed-block.yaml');
    writeFileSync(f, withSeed('seed: |\n bad'));
    const r = spawnSync(process.execPath, [BIN, 'config', 'check', f], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(2);
    const all = r.stdout + r.stderr;
    const lines = all
      .trim()
      .split('\n')
      .filter((l) => l.includes('type-mismatch'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/^(awrl-tui: )?\S+:\d+:\d+: error type-mismatch .*of type 'str'/);
    expect(all).toContain("'bad\\n'");
  });
});
