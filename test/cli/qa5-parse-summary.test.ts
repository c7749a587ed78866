// QA pass 5: `awrl-tui parse FILE` (the summary) on a log whose error message is one huge line:
// the summary stays a summary (each error on one short line), it does not print the megabyte.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rec } from '../trainer-log/helpers.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;

describe('parse summary', () => {
  it('shortens a long error message to one line of the summary', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qa5-parse-'));
    try {
      const log = join(dir, 'main.log');
      const msg = 'RuntimeError ' + 'x'.repeat(200_000) + ' END';
      writeFileSync(
        log,
        [
          rec('20260601-10:00:00.000', 'Foo', 'ERROR', msg),
          rec('20260601-10:00:01.000', 'Foo', 'ERROR', 'two\nlines'),
          '',
        ].join('\n'),
      );
      const r = spawnSync(process.execPath, [BIN, 'parse', log], { encoding: 'utf8', maxBuffer: 1 << 26 });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('errors: 2');
      const errLines = r.stdout.split('\n').filter((l) => l.startsWith('  2026'));
      expect(errLines).toHaveLength(2);
      for (const l of errLines) expect(l.length).toBeLessThanOrEqual(200);
      expect(errLines[0]).toContain('RuntimeError xxx');
      expect(errLines[0]).toMatch(/…$/);
      expect(r.stdout.length).toBeLessThan(2000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
