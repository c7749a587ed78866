// The rooms of src/ import one way only (docs/architecture.md; ROOM_ORDER in eslint.config.js): every
// import that crosses rooms goes to a room earlier in the order. eslint checks static imports as you
// type; this reads every relative specifier, dynamic `import()` and `import type` included, so a
// cycle between rooms (as runs <-> preflight was) cannot come back through a path eslint does not see.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error eslint.config.js is plain JavaScript without types
import { ROOM_ORDER } from '../../eslint.config.js';

const SRC = resolve(import.meta.dirname, '../../src');
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

const roomOf = (file: string) => relative(SRC, file).split(sep)[0];

/** Every import of one room by another: `from` file, the specifier, and the two rooms. */
function crossRoomImports() {
  const out: { file: string; spec: string; from: string; to: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), m[1]);
      if (!target.startsWith(SRC + sep)) continue;
      const from = roomOf(file);
      const to = roomOf(target);
      if (from !== to) out.push({ file: relative(SRC, file), spec: m[1], from, to });
    }
  }
  return out;
}

describe('room import directions', () => {
  const order: string[] = ROOM_ORDER;
  const edges = crossRoomImports();

  it('every folder of src/ is a room with a place in the order', () => {
    const rooms = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(rooms.filter((r) => !order.includes(r))).toEqual([]);
    expect(order.filter((r) => !existsSync(join(SRC, r)))).toEqual([]);
  });

  it('reads static, type-only and dynamic imports (the scan itself sees what it must)', () => {
    const seen = (file: string, spec: string) => edges.some((e) => e.file === file && e.spec === spec);
    expect(seen(join('cli', 'demo-command.ts'), '../ui/index.js')).toBe(true); // await import(…)
    expect(seen(join('preflight', 'gate.ts'), '../runs/index.js')).toBe(true); // import type
    expect(edges.length).toBeGreaterThan(100);
  });

  it('goes down the order only: no room imports a room after it', () => {
    const upward = edges
      .filter((e) => order.indexOf(e.to) > order.indexOf(e.from))
      .map((e) => `${e.file} imports ${e.spec} (${e.from} -> ${e.to})`);
    expect(upward).toEqual([]);
  });
});
