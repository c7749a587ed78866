// The generated batch script, run by real bash outside Slurm (SLURM_JOB_ID set by hand, a stand-in
// `scontrol` on PATH for the guard), and the sbatch options. The real-Slurm path is in slurm.test.ts.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  batchScript,
  sbatchArgs,
  serializeRunRecord,
  parseRunRecord,
  type RunRecord,
  type Target,
} from '../../src/runs/index.js';
import { START_DIRECT_SCRIPT } from '../../src/runs/start-scripts.js';

const WEIRD = `it's "odd"; $(echo no) \`echo no\` \${oc.env:HOME} * ? [x] {a,b} \\ end`;

describe('slurm batch script', () => {
  let dir: string;
  let runDir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-batch-'));
    runDir = join(dir, 'run dir');
    mkdirSync(runDir);
    mkdirSync(join(dir, 'bin'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const script = (nodes = 1) =>
    batchScript({
      runId: 'r1',
      runDir,
      workdir: dir,
      setup: 'export FROM_SETUP=yes',
      argv: [
        '/usr/bin/python3',
        '-c',
        'import json,os,sys; print(json.dumps([sys.argv[1:], os.getcwd(), os.environ.get("FROM_SETUP"), os.environ.get("AWRL_RUN_ID")]))',
        WEIRD,
      ],
      nodes,
    });

  function runBatch(args: string[], scontrolState?: string, env: Record<string, string> = {}) {
    writeFileSync(join(runDir, 'job.sbatch'), script());
    if (scontrolState) {
      writeFileSync(
        join(dir, 'bin', 'scontrol'),
        `#!/bin/sh\necho "JobId=$4 JobName=x JobState=${scontrolState} Reason=None"\n`,
      );
      chmodSync(join(dir, 'bin', 'scontrol'), 0o755);
    }
    return spawnSync('bash', [join(runDir, 'job.sbatch'), ...args], {
      env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, SLURM_JOB_ID: '7', ...env },
      encoding: 'utf8',
    });
  }

  it('is valid bash for one and for many nodes', () => {
    for (const n of [1, 8]) {
      writeFileSync(join(dir, 's.sh'), script(n));
      expect(spawnSync('bash', ['-n', join(dir, 's.sh')]).status).toBe(0);
    }
    expect(script(8)).toContain('ray start --head');
    expect(script(1)).not.toContain('ray start');
  });

  it('attempt 1 runs the trainer with its argv byte for byte, after the setup line, and records the exit', () => {
    const r = runBatch(['1']);
    expect(r.status).toBe(0);
    // The attempt's marker first (no run.json here: the attempt number it was submitted with).
    const [marker, json] = readFileSync(join(runDir, 'stdout.log'), 'utf8').split('\n');
    expect(marker).toBe('awrl: attempt 1');
    const [argv, cwd, setup, runId] = JSON.parse(json);
    expect(argv).toEqual([WEIRD]);
    expect([cwd, setup, runId]).toEqual([dir, 'yes', 'r1']);
    expect(readFileSync(join(runDir, 'slurm-exit.7'), 'utf8').trim()).toBe('0');
  });

  it('a later attempt runs only after TIMEOUT/PREEMPTED/NODE_FAIL and records itself in run.json', () => {
    const record: RunRecord = {
      version: 1,
      runId: 'r1',
      experiment: 'e',
      trial: 't',
      target: 'x',
      workdir: dir,
      runDir,
      backend: 'slurm',
      argv: [],
      secretNames: [],
      createdAt: 'c',
      attempts: [{ n: 1, reason: 'launch', startedAt: 's', jobId: '6' }],
      chainJobIds: ['7'],
      autoResume: 1,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    const skipped = runBatch(['2', '6'], 'FAILED');
    expect(skipped.status).toBe(0);
    expect(skipped.stdout).toContain('attempt 2 not needed: job 6 ended FAILED');
    expect(existsSync(join(runDir, 'stdout.log'))).toBe(false);

    const resumed = runBatch(['2', '6'], 'TIMEOUT');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(existsSync(join(runDir, 'stdout.log'))).toBe(true);
    const after = parseRunRecord(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(after?.attempts.at(-1)).toMatchObject({ n: 2, reason: 'auto-resume', jobId: '7', after: 'TIMEOUT' });
    expect(readFileSync(join(runDir, 'stdout.log'), 'utf8')).toMatch(/^awrl: attempt 2\n/);
  });

  it('a requeued job (same id, SLURM_RESTART_COUNT) is a new attempt; its marker starts a line of its own', () => {
    const record: RunRecord = {
      version: 1,
      runId: 'r1',
      experiment: 'e',
      trial: 't',
      target: 'x',
      workdir: dir,
      runDir,
      backend: 'slurm',
      argv: [],
      secretNames: [],
      createdAt: 'c',
      attempts: [{ n: 1, reason: 'launch', startedAt: 's', jobId: '7' }],
      chainJobIds: ['8'],
      autoResume: 1,
      nodes: 1,
    };
    writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
    // The first run was killed in the middle of a line.
    writeFileSync(join(runDir, 'stdout.log'), 'awrl: attempt 1\nhalf a line');
    const requeued = runBatch(['1'], undefined, { SLURM_RESTART_COUNT: '1' });
    expect(requeued.status, requeued.stderr).toBe(0);
    const after = parseRunRecord(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(after?.attempts).toHaveLength(2);
    expect(after?.attempts[1]).toMatchObject({
      n: 2,
      reason: 'auto-resume',
      jobId: '7',
      after: 'REQUEUED',
      restart: 1,
    });
    expect(readFileSync(join(runDir, 'stdout.log'), 'utf8')).toMatch(
      /^awrl: attempt 1\nhalf a line\nawrl: attempt 2\n\[/,
    );
    // The chain job after it is attempt 3, whatever number it was submitted with (job 7 did not end
    // by itself this time: no exit file).
    rmSync(join(runDir, 'slurm-exit.7'));
    const chained = spawnSync('bash', [join(runDir, 'job.sbatch'), '2', '7'], {
      env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, SLURM_JOB_ID: '8' },
      encoding: 'utf8',
    });
    expect(chained.status, chained.stderr).toBe(0);
    expect(parseRunRecord(readFileSync(join(runDir, 'run.json'), 'utf8'))?.attempts[2]).toMatchObject({
      n: 3,
      jobId: '8',
      after: 'ENDED_BY_SLURM',
    });
    expect(readFileSync(join(runDir, 'stdout.log'), 'utf8')).toContain('\nawrl: attempt 3\n');
  });

  it("sbatch options: no GPUs asked when gpus_per_node is 0, the target's extras last", () => {
    const t: Target = {
      name: 'c',
      host: 'c',
      workdir: '/w',
      python: 'python3',
      backend: 'slurm',
      slurm: { partition: 'gpu', timeLimit: '60', account: 'acc', cpusPerTask: 4, extraArgs: ['--exclusive'] },
    };
    const args = sbatchArgs(t, { runId: 'r', runDir: '/w/.awrl/runs/r', nodes: 8, gpusPerNode: 8 });
    expect(args).toEqual([
      '--job-name=awrl-r',
      '--chdir=/w/.awrl/runs/r',
      '--output=/w/.awrl/runs/r/slurm-%j.out',
      '--open-mode=append',
      '--nodes=8',
      '--ntasks-per-node=1',
      '--gpus-per-node=8',
      '--cpus-per-task=4',
      '--partition=gpu',
      '--time=60',
      '--account=acc',
      '--exclusive',
    ]);
    expect(
      sbatchArgs(
        { ...t, slurm: { ...t.slurm, gpusPerNode: 0 } },
        { runId: 'r', runDir: '/d', nodes: 1, gpusPerNode: 8 },
      ),
    ).not.toContain('--gpus-per-node=8');
  });
});

describe('direct start script', () => {
  it('refuses a malformed variable name on stdin before starting anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-start-'));
    try {
      const input = `GOOD=1\nBAD-NAME=2\n@@final\t${Buffer.from('{}').toString('base64')}\n@@end\n`;
      const r = spawnSync(
        'bash',
        ['-c', START_DIRECT_SCRIPT, 'awrl-start', dir, 'r1', 'new', '', '', '', '1', dir, '', 'true'],
        { input, encoding: 'utf8' },
      );
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/malformed environment variable name/);
      expect(r.stderr).not.toContain('BAD-NAME');
      expect(existsSync(join(dir, 'job.pid'))).toBe(false);
      expect(existsSync(join(dir, 'r1'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
