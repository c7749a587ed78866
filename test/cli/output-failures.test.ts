// Output that cannot be written is said in one line, never a stack trace: `runs` and `follow` to a
// full disk (/dev/full: ENOSPC) exit 1 with `cannot write the output`. And `runs RUN --json` of a
// run that is not there is `run-not-found` (exit 2), as without --json, never `[]` with exit 0.
import { describe, expect, it, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeRunRecord, type RunRecord } from '../../src/runs/run-record.js';
import { SHARED } from '../harness/fixtures.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const workdir = mkdtempSync(join(tmpdir(), 'awrl-output-'));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

/** The CLI with stdout on `/dev/full` (or a pipe): its exit code and stderr. */
function cli(args: string[], full: boolean): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const fd = full ? openSync('/dev/full', 'w') : 'pipe';
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', fd, 'pipe'] });
  if (typeof fd === 'number') closeSync(fd);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (b) => (stdout += b));
  child.stderr!.on('data', (b) => (stderr += b));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('output that cannot be written, a run that is not there', () => {
  const runId = 'ended-20261201-000000-0001';
  const runDir = join(workdir, '.awrl', 'runs', runId);
  mkdirSync(runDir, { recursive: true });
  const at = '2026-12-01T00:00:00.000Z';
  const record: RunRecord = {
    ...{ version: 1, runId, experiment: 'e', trial: 't', target: 'local', workdir, runDir, backend: 'direct' },
    ...{ argv: ['python3'], secretNames: [], createdAt: at, chainJobIds: [], autoResume: 0, nodes: 1 },
    attempts: [{ n: 1, reason: 'launch', startedAt: at, pid: 999_999_999 }],
  };
  writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
  writeFileSync(join(runDir, 'stdout.log'), readFileSync(`${SHARED}fixtures/areal-logs/run-a/main.log`));
  const target = ['--target', 'local', '--workdir', workdir];

  it.each([
    ['runs', ['runs', ...target]],
    ['runs --json', ['runs', ...target, '--json']],
    ['follow', ['follow', runId, ...target]],
    ['follow --json', ['follow', runId, ...target, '--json']],
  ])('%s to a full disk: one line, exit 1', async (_name, args) => {
    const r = await cli(args, true);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('awrl-tui: cannot write the output: ENOSPC: no space left on device, write');
  });

  it('runs UNKNOWN --json: run-not-found, exit 2', async () => {
    const r = await cli(['runs', 'no-such-run', ...target, '--json'], false);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toContain('[]');
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ type: 'cli-error', code: 'run-not-found' });
  });
});
