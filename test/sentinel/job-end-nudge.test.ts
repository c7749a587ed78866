import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { jobEndNudge } from '../../src/sentinel/job-end-nudge.js';
import { waitFor } from '../harness/wait.js';

describe("the sentinel's look at its direct run's job", () => {
  it('nudges when the job process goes and when its exit code is written, not while nothing changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-nudge-'));
    const job = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, 'job.pid'), `${job.pid}\n`);
      let nudges = 0;
      const stop = jobEndNudge(dir, 20)(() => nudges++);
      // Several looks with the job alive and no exit code: no nudge.
      const t0 = Date.now();
      await waitFor(() => Date.now() - t0 > 200, { what: 'ten looks' });
      expect(nudges).toBe(0);
      job.kill('SIGKILL');
      await once(job, 'exit'); // reaped: no zombie answers kill(pid, 0)
      await waitFor(() => nudges === 1, { what: 'the nudge for the job gone' });
      writeFileSync(join(dir, 'exit.code'), '137\n');
      await waitFor(() => nudges === 2, { what: 'the nudge for the exit code' });
      stop();
    } finally {
      if (job.exitCode === null && job.signalCode === null) job.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
