// One watch (docs/architecture.md "one of each"): every room that watches a run gets its RunWatch from
// src/watch's createRunWatch, so what a watch needs is wired in one place. This reads every source
// file outside src/watch for a `new RunWatch(` (a second constructor call is how a second watch starts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');
const CONSTRUCTS = /\bnew\s+RunWatch\s*[(<]/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe('the one watch', () => {
  const files = sourceFiles(SRC);
  const constructing = files.filter((f) => CONSTRUCTS.test(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f));

  it('the scan sees the one construction (inside src/watch)', () => {
    expect(constructing).toContain(join('watch', 'create-run-watch.ts'));
  });

  it('only src/watch constructs a RunWatch: every other room calls createRunWatch', () => {
    expect(constructing.filter((f) => !f.startsWith(`watch${sep}`))).toEqual([]);
  });
});
