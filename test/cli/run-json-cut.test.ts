// A run whose run.json was cut short (a disk that filled mid-write) does not disappear: `runs` lists
// it as unknown with the reason and what its pid file says, and `follow` still reads its log.
import { describe, expect, it, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED } from '../harness/fixtures.js';
import { waitFor, pidAlive } from '../harness/wait.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const workdir = mkdtempSync(join(tmpdir(), 'awrl-cutjson-'));
const started: number[] = [];
afterAll(() => {
  for (const p of started) if (pidAlive(p)) process.kill(p, 'SIGKILL');
  rmSync(workdir, { recursive: true, force: true });
});

function cli(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child.pid!);
  const p = { child, stdout: '', stderr: '', done: Promise.resolve<number | null>(null) };
  child.stdout.on('data', (b) => (p.stdout += b));
  child.stderr.on('data', (b) => (p.stderr += b));
  p.done = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  return p;
}

describe('a run.json cut short', { timeout: 60_000 }, () => {
  it('is listed as unknown with the reason, and its log is still followed', async () => {
    const runId = 'cut-20261201-000000-0001';
    const runDir = join(workdir, '.awrl', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    writeFileSync(join(runDir, 'run.json'), '{"version":1,"runId":"cut-20261201-000000-0001","experi');
    writeFileSync(join(runDir, 'job.pid'), '999999999\n');
    writeFileSync(join(runDir, 'stdout.log'), readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`));
    const target = ['--target', 'local', '--workdir', workdir];
    const runs = cli(['runs', ...target, '--json']);
    expect(await runs.done, runs.stderr).toBe(0);
    expect(JSON.parse(runs.stdout)).toEqual([
      expect.objectContaining({
        runId,
        state: 'unknown',
        detail: 'run.json unreadable (cut short or corrupt); its job (job.pid) is not running',
      }),
    ]);
    const f = cli(['follow', runId, ...target]);
    await waitFor(() => /^step 12\/160/m.test(f.stdout), { timeoutMs: 30_000, what: "the log's steps" });
    expect(f.stderr).toContain(`${runId}: run.json unreadable (cut short or corrupt)`);
    f.child.kill('SIGINT');
    await f.done;
  });
});
