#!/usr/bin/env node
// `npm run bench`: runs every test/bench/*.bench.mjs in name order (or those named on the command
// line, e.g. `npm run bench -- parse`), each in its own process so one's memory does not skew another's.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n=== ${f}\n`);
  const r = spawnSync(process.execPath, [join(here, f)], {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
