// `awrl-tui runs [RUN] --target T [--json]`: runs on a target with their live state, step and
// reward; a failed run's last log lines under the table (with RUN: that run only).
import { assertWorkdir, listRuns, runJobIdsOf, RunError, type RunSummary } from '../runs/index.js';
import { nonFiniteText, statJsonValue } from '../trainer-log/index.js';
import { chainShort } from '../runs/attempt-chain.js';
import { checkNodeFailure } from '../watch/node-facts.js';
import { isActive } from '../runs/run-state.js';
import type { Alert } from '../metrics/index.js';
import { parseCli } from '../runs/cli-target.js';
import { connectOrExit } from './connect-target.js';
import { CliError, EXIT } from './errors.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { withJsonErrors } from './json-errors.js';
import { cliErrorFromRun, cliTarget } from './run-errors.js';
import { NO_SENTINEL, sentinelText, type SentinelView } from '../runs/sentinel-status.js';
import { targetWords } from './cli-words.js';
import type { Transport } from '../remote/transport.js';
import type { ExpectedWandb } from '../runs/wandb-expected.js';

/** The sentinel as `runs --json` gives it (src/runs/sentinel-status.ts). */
const sentinelJson = (v: SentinelView) => ({
  state: v.state,
  pid: v.pid,
  heartbeatAt: v.heartbeatAt,
  notify: v.notify,
  ...(v.why ? { why: v.why } : {}),
  ...(v.failures?.length ? { failures: v.failures } : {}),
  ...(v.disk ? { disk: v.disk } : {}),
});

function row(r: RunSummary, withChain: boolean): string[] {
  const step = r.globalStep !== undefined ? `${r.globalStep}/${r.totalSteps}` : '-';
  const v = r.lastReward;
  const reward = v === undefined ? '-' : v === null ? 'n/a' : Number.isFinite(v) ? v.toFixed(4) : nonFiniteText(v);
  const cells = [
    r.runId,
    r.state,
    `${r.record.experiment}/${r.record.trial}`,
    step,
    reward,
    r.record.backend,
    r.detail,
  ];
  if (withChain) cells.push(r.chain && r.chain.length > 1 ? chainShort(r.chain) : '-');
  return cells;
}

/** The runs as a table; a CHAIN column (`17 TIMEOUT > 18 from step 13 running`) when a run was resumed. */
export function formatRunsTable(runs: RunSummary[]): string {
  const withChain = runs.some((r) => (r.chain?.length ?? 0) > 1);
  const head = [
    'RUN',
    'STATE',
    'EXPERIMENT/TRIAL',
    'STEP',
    'REWARD',
    'BACKEND',
    'DETAIL',
    ...(withChain ? ['CHAIN'] : []),
  ];
  const rows = [head, ...runs.map((r) => row(r, withChain))];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

/** The wandb run each config makes, for the runs whose log has no banner yet: the active ones, or
 *  every one when one run was asked for (one config read each; a run whose config cannot be read
 *  has none). */
async function expectedWandbOf(
  transport: Transport,
  runs: RunSummary[],
  all: boolean,
): Promise<Map<string, ExpectedWandb | null>> {
  const out = new Map<string, ExpectedWandb | null>();
  const need = runs.filter((r) => !r.wandb && (all || isActive(r.state)));
  if (need.length === 0) return out;
  const { readRunFacts } = await import('../runs/run-facts-eval.js');
  for (const r of need) out.set(r.runId, (await readRunFacts(transport, r.record).catch(() => null))?.wandb ?? null);
  return out;
}

/** The JSON fields of a run's wandb run: `wandbUrl` (null: not known), `wandbFrom` (`log`: the
 *  banner; `config`: computed before it, `wandbExpected` saying what is not known yet). */
function wandbJson(r: RunSummary, e: ExpectedWandb | null | undefined): Record<string, unknown> {
  if (r.wandb?.url) return { wandbUrl: r.wandb.url, wandbFrom: 'log' };
  if (r.wandb && r.wandb.url === null) {
    const dir = r.wandb.offlineDir;
    return { wandbUrl: null, wandbFrom: 'log', wandbOffline: { dir, sync: `wandb sync ${dir}` } };
  }
  if (!e) return { wandbUrl: null, wandbFrom: null };
  const { url, ...rest } = e;
  return { wandbUrl: url, wandbFrom: 'config', wandbExpected: rest };
}

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => list(args));

async function list(args: string[]): Promise<number> {
  quietWhenStdoutCloses();
  let p;
  try {
    p = parseCli(args, { switches: ['--json', '--accept-new-host-key'] });
    if (p.positional.length > 1) throw new Error(`unexpected argument '${p.positional[1]}'`);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  const target = cliTarget(p.flags);
  const transport = await connectOrExit(target, { acceptNewHostKey: p.switches.has('--accept-new-host-key') });
  try {
    // A workdir that is not there is said as such (exit 2), not as "no runs".
    await assertWorkdir(transport, target).catch((e) => {
      throw e instanceof RunError ? cliErrorFromRun(e) : e;
    });
    const only = p.positional[0];
    const runs = await listRuns(transport, target, { chain: true, ...(only !== undefined ? { only } : {}) }).catch(
      (e: Error) => {
        throw new CliError(e.message, EXIT.failed, { code: 'remote-failed' });
      },
    );
    // A Slurm node failure of an active run, named with Slurm's verdict (one exec per such run).
    const nodeAlerts = new Map<string, Alert>();
    for (const r of runs) {
      if (r.record.backend !== 'slurm' || !isActive(r.state) || !r.record.attempts.some((a) => a.nodes?.length))
        continue;
      const a = (await checkNodeFailure(transport, target, r.record).catch(() => null))?.alert;
      if (a) nodeAlerts.set(r.runId, a);
    }
    // A run asked for by id that is not there is an error, with --json too (never `[]`, exit 0).
    if (only !== undefined && runs.length === 0)
      throw new CliError(`no run ${only} on ${target.name} (${target.workdir}/.awrl/runs)`, EXIT.usage, {
        code: 'run-not-found',
      });
    if (p.switches.has('--json')) {
      const expected = await expectedWandbOf(transport, runs, only !== undefined);
      const rows = runs.map((r) => ({
        runId: r.runId,
        state: r.state,
        detail: r.detail,
        experiment: r.record.experiment,
        trial: r.record.trial,
        backend: r.record.backend,
        globalStep: r.globalStep ?? null,
        totalSteps: r.totalSteps ?? null,
        // nan, inf, -inf as the JSON strings parse --json writes for stats values.
        lastReward: statJsonValue(r.lastReward ?? null),
        createdAt: r.record.createdAt,
        attempts: r.record.attempts,
        jobIds: runJobIdsOf(r.record),
        // Each attempt: job id or pid, start, end, why it ended, the step it resumed from.
        chain: r.chain ?? [],
        runDir: r.record.runDir,
        exit: r.exitCode ?? null,
        ...(r.lastLines ? { lastLines: r.lastLines } : {}),
        nodeFailure: nodeAlerts.get(r.runId) ?? null,
        sentinel: sentinelJson(r.sentinel ?? NO_SENTINEL),
        // wandb's run as the log's banner says, else as the config makes it (before the banner: an
        // active run, or the one asked for); null: not known (offline, disabled, a part unknown).
        ...wandbJson(r, expected.get(r.runId)),
        ...(r.wandb && r.wandb.url === null
          ? { wandbOffline: { dir: r.wandb.offlineDir, sync: `wandb sync ${r.wandb.offlineDir}` } }
          : {}),
      }));
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    } else if (runs.length === 0) {
      process.stdout.write(`no runs on ${target.name} (${target.workdir}/.awrl/runs)\n`);
    } else {
      process.stdout.write(`${formatRunsTable(runs)}\n`);
      for (const [id, a] of nodeAlerts) process.stdout.write(`${id}: ${a.title}\n`);
      for (const r of runs) {
        const v = r.sentinel ?? NO_SENTINEL;
        if (v.state === 'none' || (v.state === 'stopped' && only === undefined)) continue;
        const restart =
          v.state === 'silent' ? `; start another: awrl-tui sentinel start ${r.runId} ${targetWords(args)}` : '';
        process.stdout.write(`${r.runId}: ${sentinelText(v)}${restart}\n`);
      }
      // Why a failed run failed: its log's last lines (a run that died at once has no trainer record).
      // All runs: 3 lines each (the table stays readable); `runs RUN`: every line kept (10).
      for (const r of runs) {
        const lines = only !== undefined ? r.lastLines : r.lastLines?.slice(-3);
        if (lines?.length)
          process.stdout.write(
            `\n${r.runId} failed; the last lines of its log:\n${lines.map((l) => `  ${l}`).join('\n')}\n`,
          );
      }
    }
    return EXIT.ok;
  } finally {
    await transport.close().catch(() => undefined);
  }
}
