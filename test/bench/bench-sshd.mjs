// The test harness's real sshd (test/harness/sshd.ts) for the benches that go over ssh. The harness
// is TypeScript: it is transpiled here (typescript's transpileModule) into a temp dir first.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const harness = join(dirname(fileURLToPath(import.meta.url)), '..', 'harness');

/** startSshd from the harness (its stop() kills its processes by PID and removes its files). */
export async function startBenchSshd(opts = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'awrl-bench-harness-'));
  try {
    for (const f of ['sshd', 'wait']) {
      const src = readFileSync(join(harness, `${f}.ts`), 'utf8');
      const out = ts.transpileModule(src, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(tmp, `${f}.js`), out.outputText);
    }
    const { startSshd } = await import(pathToFileURL(join(tmp, 'sshd.js')).href);
    return await startSshd(opts);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** CPU seconds (user + system, with reaped children) of a process, or 0 once it is gone. */
export function cpuOf(pid) {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    // utime stime cutime cstime are fields 14-17 (1-based) of the whole line: 12-15 here.
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return 0;
  }
}

/** Whether the process's argv contains `word` (e.g. the follower's argv0 `awrl-follow`). */
export function argvHas(pid, word) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`).includes(Buffer.from(`\0${word}\0`));
  } catch {
    return false;
  }
}
