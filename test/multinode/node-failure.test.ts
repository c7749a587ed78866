// A node of a 4-node Slurm run dies (its namespace init SIGKILLed) on a 5-node cluster: Slurm sets it
// DOWN (Not responding) and requeues the job (same id). `follow` names the node and Slurm's verdict,
// raises no stall alert while the job waits, `runs` says pending; once the job starts again on
// the 4 healthy nodes the run resumes from its recover checkpoint as attempt 2, and every place that
// numbers attempts (run.json, the log's markers, runs' detail and chain) agrees.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listRuns, parseRunRecord } from '../../src/runs/index.js';
import { checkNodeFailure } from '../../src/watch/node-facts.js';
import { pendingGpuNote } from '../../src/runs/pending-gpus.js';
import { createLiveSession, type LiveSession } from '../../src/session/live-session.js';
import { waitFor } from '../harness/wait.js';
import { sentinelCli } from '../runs/cli-process.js';
import { TOKEN, rayRunOverrides, startWorld, type World } from './world.js';

const { start, cli, killAll } = sentinelCli(TOKEN);

describe('a node failure during a 4-node Slurm run', () => {
  let w: World;
  let session: LiveSession | null = null;
  beforeAll(async () => {
    w = await startWorld(5, 40); // ~15 s a step: the run is still going when the node dies
  }, 120_000);
  afterAll(async () => {
    killAll();
    await session?.close();
    await w?.stop();
  }, 60_000);

  it('is named with Slurm verdict, requeued without a stall alert, and resumed as attempt 2', async () => {
    const res = await w.launch([...rayRunOverrides(4, 'mn-fail'), 'recover.freq_steps=1']);
    const job = res.jobIds[0];
    const runDir = res.record.runDir;
    const log = (): string => readFileSync(join(runDir, 'stdout.log'), 'utf8');
    const record = () => parseRunRecord(readFileSync(join(runDir, 'run.json'), 'utf8'))!;
    await waitFor(() => /Train step 1\/\d+ done/.test(log()), {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: 'the first step',
    });
    expect(record().attempts[0].nodes).toEqual(['n1', 'n2', 'n3', 'n4']);
    const follow = start(['follow', res.record.runId, '--json', ...w.cliArgs()]);
    // The cockpit's session on the same run (its GPU poller idle: only the alerts are under test).
    session = createLiveSession({
      targets: [{ target: w.target(), transport: w.t }],
      gpuPoller: () => () => {},
      runFacts: async () => ({}),
      runsPollMs: 5_000,
      statePollMs: 3_000,
    });
    session.actions.selectRun(res.record.runId);

    await w.cluster.killNode('n3');
    const named =
      `node n3 failed: Slurm set it DOWN (Not responding) and requeued job ${job}; ` +
      'the run resumes from its last recover checkpoint when the job starts again';
    const alertLines = () =>
      follow.stdout
        .split('\n')
        .filter((l) => l.startsWith('{"type":"alert"'))
        .map((l) => JSON.parse(l));
    await waitFor(() => alertLines().some((a) => a.title === named), {
      timeoutMs: 90_000,
      intervalMs: 500,
      what: `the node-failure alert\n${follow.stdout.slice(-2000)}\n${follow.stderr.slice(-2000)}`,
    });
    await waitFor(() => session!.getState().run?.alerts.some((a) => a.title === named), {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: 'the alert in the cockpit',
    });
    const direct = await checkNodeFailure(w.t, w.target(), record());
    expect(direct.alert?.title).toBe(named);
    expect(direct.facts?.nodes.find((n) => n.node === 'n3')).toMatchObject({
      state: 'down*',
      reason: 'Not responding',
    });
    const pending = (await listRuns(w.t, w.target(), { only: res.record.runId }))[0];
    expect(pending.state).toBe('pending');
    expect(pendingGpuNote(pending)).toBe('no allocation (pending)');
    const runs = await cli(['runs', ...w.cliArgs()]);
    expect(runs.stdout).toContain(`${res.record.runId}: ${named}`);

    // Slurm would start it ~2 min after the requeue (BeginTime): now, on the 4 nodes left.
    const scontrol = (...a: string[]) => {
      try {
        return execFileSync('scontrol', a, { env: w.cluster.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (e) {
        return `scontrol ${a.join(' ')}: ${(e as { stderr?: string }).stderr ?? e}`;
      }
    };
    await waitFor(
      () => {
        if (/JobState=PENDING/.test(scontrol('show', 'job', '-o', job)))
          scontrol('update', `JobId=${job}`, 'StartTime=now');
        return record().attempts.length === 2;
      },
      { timeoutMs: 90_000, intervalMs: 2000, what: 'attempt 2 in run.json' },
    ).catch((e: Error) => {
      throw new Error(
        `${e.message}\n${scontrol('show', 'job', '-o', job)}\n${log().slice(-3000)}\n` +
          readFileSync(join(w.cluster.dir, 'log', 'slurmctld.log'), 'utf8').slice(-3000),
      );
    });
    const a2 = record().attempts[1];
    expect(a2).toMatchObject({ n: 2, jobId: job, after: 'REQUEUED', restart: 1, nodes: ['n1', 'n2', 'n4', 'n5'] });
    await waitFor(() => /Recovering from StepInfo/.test(log().split('awrl: attempt 2')[1] ?? ''), {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: 'the resume',
    });
    expect(
      log()
        .split('\n')
        .filter((l) => l.startsWith('awrl: attempt')),
    ).toEqual(['awrl: attempt 1', 'awrl: attempt 2']);
    await waitFor(
      () =>
        alertLines().some((a) =>
          /attempt 2 runs on n1, n2, n4, n5 \(Slurm's requeue, not the auto-resume chain\)/.test(a.title),
        ),
      { timeoutMs: 60_000, intervalMs: 500, what: 'the requeue note' },
    ).catch(async (e: Error) => {
      const now = await checkNodeFailure(w.t, w.target(), record());
      throw new Error(
        `${e.message}\n${JSON.stringify(now)}\n${follow.stdout
          .split('\n')
          .filter((l) => !l.includes('"type":"step"'))
          .join('\n')
          .slice(-3000)}\n${follow.stderr.slice(-2000)}`,
      );
    });
    // No stall alert while the job was requeued or pending: no step was due. (One raised while the job
    // still ran with a dead node that Slurm had not yet noticed, on a loaded machine, is cleared once
    // the failure is named: the silence was the node's.)
    const lines = follow.stdout.split('\n').filter((l) => l.startsWith('{"type":"alert'));
    const namedAt = lines.findIndex((l) => l.includes(JSON.stringify(named)));
    const restartedAt = lines.findIndex((l) => /Slurm's requeue, not the auto-resume chain/.test(l));
    const isStall = (l: string) => /"id":"health\/stall\//.test(l);
    expect(lines.slice(namedAt, restartedAt).filter((l) => l.startsWith('{"type":"alert"') && isStall(l))).toEqual([]);
    const before = lines.slice(0, namedAt).filter((l) => l.startsWith('{"type":"alert"') && isStall(l));
    for (const l of before) {
      const id = JSON.parse(l).id as string;
      expect(
        lines
          .slice(namedAt, restartedAt + 1)
          .some((x) => x.startsWith('{"type":"alert-cleared"') && x.includes(`"id":"${id}"`)),
        id,
      ).toBe(true);
    }

    const [listed] = await listRuns(w.t, w.target(), { only: res.record.runId, chain: true });
    expect(listed.state).toBe('running');
    expect(listed.detail).toContain('(attempt 2)');
    expect(listed.chain?.map((c) => c.n)).toEqual([1, 2]);
    // The chain column names the failure and Slurm's requeue, by the attempt numbers run.json has.
    expect(listed.chain?.[0]).toMatchObject({ ended: 'REQUEUED', nodeFailures: ['n3'] });
    const table = await cli(['runs', ...w.cliArgs()]);
    expect(table.stdout).toContain('#1 node failure n3 → requeued by Slurm → #2 ');
    follow.child.kill('SIGINT');
    await follow.done;
  }, 420_000);
});
