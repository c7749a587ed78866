// What the sentinel needs on a target, read from this installation: the compiled modules its
// command reaches (static and lazy imports, followed from its entry), the npm packages they import
// (with their own dependencies), and a MANIFEST of sha256 sums that names the bundle. The same
// files always make the same name, so a target that has it installed is not sent it again.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TarEntry } from './tar.js';

/** This installation's root (the directory holding dist/ and node_modules/). */
export const INSTALL_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The CLI's entry, relative to a bundle's root (the sentinel runs `node MAIN sentinel-run …`). */
export const BUNDLE_MAIN = 'dist/cli/main.js';

/** Entries: [file, follow lazy imports too]. main.js lazily loads every command: only its own
 *  static imports, its error report, and the sentinel's command are needed. */
const ENTRIES: Array<[string, boolean]> = [
  [BUNDLE_MAIN, false],
  ['dist/cli/json-errors.js', true],
  ['dist/cli/sentinel-run-command.js', true],
];

// tsc writes each import at a line's start; a lazy one is followed only to our own modules.
const IMPORT_RE = /^\s*(?:import|export)\s[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm;
const LAZY_RE = /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;
const BUILTIN = new Set(builtinModules);
const PACKAGE_FILE = /\.(?:js|mjs|cjs|json)$/;

export interface Bundle {
  /** `VERSION-HASH12`: the directory under ~/.cache/awrl-tui on the target. */
  name: string;
  /** sha256 of MANIFEST (the install checks it before anything is used). */
  manifestSha: string;
  entries: TarEntry[];
}

export function buildBundle(root = INSTALL_ROOT): Bundle {
  const files = new Set<string>(['package.json']);
  const packages = new Set<string>();
  const seen = new Set<string>();
  const walk = (rel: string, lazy: boolean) => {
    if (seen.has(`${rel}:${lazy}`)) return;
    seen.add(`${rel}:${lazy}`);
    files.add(rel);
    const text = readFileSync(join(root, rel), 'utf8');
    const specs = [...text.matchAll(IMPORT_RE)].map((m) => m[1] ?? m[2]);
    if (lazy) specs.push(...[...text.matchAll(LAZY_RE)].map((m) => m[1]));
    for (const s of specs) {
      if (s.startsWith('.')) walk(relative(root, resolve(root, dirname(rel), s)), lazy);
      else if (!s.startsWith('node:') && !BUILTIN.has(s)) packages.add(packageName(s));
    }
  };
  for (const [e, lazy] of ENTRIES) walk(e, lazy);
  for (const p of packageClosure(root, packages)) for (const f of packageFiles(root, p)) files.add(f);
  const sorted = [...files].sort();
  const entries: TarEntry[] = sorted.map((path) => ({ path, mode: 0o644, data: readFileSync(join(root, path)) }));
  const manifest = entries.map((e) => `${sha256(e.data)}  ${e.path}\n`).join('');
  const manifestSha = sha256(Buffer.from(manifest));
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  entries.push({ path: 'MANIFEST', mode: 0o644, data: Buffer.from(manifest) });
  return { name: `${version}-${manifestSha.slice(0, 12)}`, manifestSha, entries };
}

/** The Node binary this process runs on, as a bundle of its own (`node-vX.Y.Z-OS-ARCH`). */
export function nodeBundle(execPath = process.execPath): Bundle {
  const data = readFileSync(execPath);
  const manifest = `${sha256(data)}  bin/node\n`;
  const manifestSha = sha256(Buffer.from(manifest));
  return {
    name: `node-${process.version}-${process.platform}-${process.arch}`,
    manifestSha,
    entries: [
      { path: 'bin/node', mode: 0o755, data },
      { path: 'MANIFEST', mode: 0o644, data: Buffer.from(manifest) },
    ],
  };
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

const packageName = (spec: string): string =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');

function packageClosure(root: string, names: Set<string>): string[] {
  const out = new Set<string>();
  const add = (n: string) => {
    if (out.has(n)) return;
    const pj = join(root, 'node_modules', n, 'package.json');
    if (!existsSync(pj)) throw new Error(`the sentinel needs the package ${n}, which is not in ${root}/node_modules`);
    out.add(n);
    const deps = (JSON.parse(readFileSync(pj, 'utf8')) as { dependencies?: Record<string, string> }).dependencies;
    for (const d of Object.keys(deps ?? {})) add(d);
  };
  for (const n of names) add(n);
  return [...out];
}

/** A package's runtime files (code and JSON; no types, maps, sources or docs). */
function packageFiles(root: string, name: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const d of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${d.name}`;
      if (d.isDirectory()) {
        if (d.name !== 'node_modules') walk(rel);
      } else if (PACKAGE_FILE.test(d.name) && !d.name.endsWith('.d.json') && statSync(join(root, rel)).isFile())
        out.push(rel);
    }
  };
  walk(`node_modules/${name}`);
  return out;
}
