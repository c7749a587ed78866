// `awrl-tui --launch --target T --config FILE [OVERRIDE…] [--follow] [--json] [--force] [--auto-resume N] [--skip-preflight]`
// `awrl-tui --launch --resume RUN --target T [--follow] [--json] [--skip-preflight]`
// Validation happens before any connection: a config error touches nothing on the target. Then the
// pre-flight probes the target; an error-level check stops the launch (exit 2) with nothing created,
// unless --skip-preflight is given (recorded in run.json).
import { readFileSync } from 'node:fs';
import { launchRun, resumeRun, collectSecrets, planFromConfig, RunError, type LaunchResult, type Target } from '../runs/index.js';
import { parseCli, TARGET_VALUE_FLAGS } from '../runs/cli-target.js';
import { connectOrExit } from './connect-target.js';
import { shellQuote } from '../remote/quote.js';
import type { Transport } from '../remote/transport.js';
import type { ConfigEvaluation } from '../config/index.js';
import { preflightGate, evaluationForResume } from '../runs/preflight-gate.js';
import { settledByPreflight } from '../preflight/settled.js';
import type { PreflightSummary } from '../runs/run-record.js';
import { CliError, EXIT } from './errors.js';
import { NODE_NAME } from '../remote/node-fan-out.js';
import { directRunNodes } from '../runs/direct-nodes.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { followAndPrint } from './follow-output.js';
import { withJsonErrors } from './json-errors.js';
import { cliErrorFromRun, cliTarget } from './run-errors.js';

const OWN = {
  values: ['--config', '--resume', '--auto-resume', '--reconnect-timeout', '--node'],
  switches: ['--follow', '--json', '--force', '--accept-new-host-key', '--skip-preflight'],
};

const out = (s: string) => process.stdout.write(`${s}\n`);
const err = (s: string) => process.stderr.write(`${s}\n`);

/** The target words the user typed (`--target h -F f --workdir d` …), quoted, to repeat in advice. */
export function targetWords(args: string[]): string {
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (!(name in TARGET_VALUE_FLAGS)) continue;
    const v = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (v !== undefined) words.push(name, shellQuote(v));
  }
  return words.join(' ');
}

/** A flag's whole-number value (seconds, counts), or the default when absent. */
export function wholeNumber(name: string, v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v)) throw new CliError(`${name} needs a whole number, not '${v}'`, EXIT.usage);
  return Number(v);
}

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => launch(args));

async function launch(args: string[]): Promise<number> {
  quietWhenStdoutCloses();
  let p;
  try {
    p = parseCli(args, OWN);
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.usage);
  }
  const follow = p.switches.has('--follow');
  const json = p.switches.has('--json');
  const autoResume = wholeNumber('--auto-resume', p.values['--auto-resume'], 0);
  const reconnectTimeoutS = wholeNumber('--reconnect-timeout', p.values['--reconnect-timeout'], 300);
  const resumeId = p.values['--resume'];
  const configFile = p.values['--config'];
  if (!resumeId && !configFile) throw new CliError('--launch needs --config FILE (or --resume RUN)', EXIT.usage);
  if (resumeId && configFile) throw new CliError('--resume relaunches with the run\'s own config: drop --config', EXIT.usage);
  if (resumeId && p.positional.length > 0) throw new CliError(`--resume takes no overrides (got '${p.positional[0]}')`, EXIT.usage);

  const target: Target = cliTarget(p.flags);
  // A direct multi-node run's nodes, given once (recorded in run.json for the panel and the leftovers).
  const nodeNames = (p.values['--node'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const badNode = nodeNames.find((n) => !NODE_NAME.test(n));
  if (badNode !== undefined) throw new CliError(`--node: '${badNode}' is not a host name`, EXIT.usage);
  if (nodeNames.length > 0 && target.backend === 'slurm') throw new CliError('--node names a direct run\'s hosts: Slurm chooses its own nodes (drop --node)', EXIT.usage);
  if (nodeNames.length > 0 && resumeId) throw new CliError('--resume keeps the nodes the run was launched with: drop --node', EXIT.usage);
  if (autoResume > 0 && target.backend !== 'slurm') {
    throw new CliError('--auto-resume resubmits Slurm jobs after TIMEOUT/PREEMPTED/NODE_FAIL: it needs --backend slurm', EXIT.usage);
  }
  // Informational lines go to stderr when stdout carries JSON.
  const info = json ? err : out;

  const envNames = Object.keys(process.env).filter((k) => process.env[k] !== undefined && process.env[k] !== '');
  const skipPreflight = p.switches.has('--skip-preflight');
  let launch: (t: Transport, preflight: PreflightSummary | undefined) => Promise<LaunchResult>;
  /** The config to pre-flight (for a resume: the run's own, read from the target once connected). */
  let evaluationOf: (t: Transport) => Promise<ConfigEvaluation | null>;
  if (configFile) {
    let text: string;
    try {
      text = readFileSync(configFile, 'utf8');
    } catch (e) {
      throw new CliError(`cannot read config ${configFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, EXIT.usage, { code: 'file-unreadable' });
    }
    const planned = planFromConfig({
      target,
      fileName: configFile,
      text,
      overrides: p.positional,
      env: process.env,
      autoResume,
      force: p.switches.has('--force'),
    });
    for (const m of planned.messages) err(m);
    if (!planned.ok) {
      throw new CliError(`${configFile}: ${planned.errorCount} error(s); nothing was started`, EXIT.usage, {
        code: 'config-invalid',
        hint: `the errors are listed on stderr; as JSON: awrl-tui config check ${shellQuote(configFile)} --json`,
      });
    }
    try {
      collectSecrets(planned.plan.secretNames, process.env); // fail before connecting
    } catch (e) {
      throw new CliError((e as Error).message, EXIT.usage, { code: 'secret-missing' });
    }
    launch = (t, preflight) => launchRun({ ...planned.plan, ...(preflight ? { preflight } : {}), ...(nodeNames.length ? { nodeNames } : {}) }, t, { env: process.env });
    evaluationOf = async () => planned.evaluation;
  } else {
    launch = (t, preflight) => resumeRun(resumeId!, t, target, { env: process.env, autoResume, ...(preflight ? { preflight } : {}) });
    evaluationOf = (t) => evaluationForResume(t, target, resumeId!, envNames);
  }

  const transport = await connectOrExit(target, { acceptNewHostKey: p.switches.has('--accept-new-host-key'), reconnectTimeoutMs: reconnectTimeoutS * 1000 });
  try {
    let preflight: PreflightSummary | undefined;
    const evaluation = await evaluationOf(transport).catch(() => null);
    if (evaluation) {
      // A direct multi-node run: pre-flight every node it will use (given, or its Ray cluster's), not the head alone.
      const multi = target.backend === 'direct' && (nodeNames.length > 0 || Number((evaluation.resolved as Record<string, any> | null)?.cluster?.n_nodes) > 1);
      const others = multi ? (await directRunNodes(transport, target, nodeNames)).nodes.slice(1) : [];
      const gate = await preflightGate(transport, { evaluation, target, envNames, skip: skipPreflight, ...(resumeId ? { runId: resumeId } : {}), ...(others.length ? { nodes: others } : {}) });
      info(`preflight on ${target.name}:`);
      info(gate.text.replace(/\n$/, ''));
      // A warning printed above that the target has now answered (actor.path found there).
      for (const d of evaluation.diagnostics.filter((x) => x.severity === 'warning' && settledByPreflight(x, gate.checks))) {
        info(`note: ${d.key} is there on ${target.name}: the warning above (${d.code}) does not apply`);
      }
      if (gate.blocked) throw new CliError(gate.reason, EXIT.usage, { code: 'preflight-failed', hint: 'fix the errors listed on stderr, or pass --skip-preflight to launch anyway' });
      preflight = gate.summary;
    } else if (resumeId) {
      // resumeRun says what is wrong when the run itself is missing; otherwise its config no longer reads.
      info(`preflight: skipped (the config of run ${resumeId} could not be read or evaluated on ${target.name})`);
    }
    let res: LaunchResult;
    try {
      res = await launch(transport, preflight);
    } catch (e) {
      if (e instanceof RunError) throw cliErrorFromRun(e);
      throw new CliError(`launch on ${target.name} failed: ${(e as Error).message}`, EXIT.failed, { code: 'remote-failed' });
    }
    const summary = {
      runId: res.record.runId,
      target: target.name,
      runDir: res.runDir,
      log: res.logPath,
      ...(res.pid !== undefined ? { pid: res.pid } : {}),
      ...(res.jobIds.length ? { jobIds: res.jobIds } : {}),
    };
    if (json && !follow) out(JSON.stringify(summary));
    else {
      info(`run      ${summary.runId}`);
      info(`target   ${summary.target}`);
      info(`run dir  ${summary.runDir}`);
      info(`log      ${summary.log}`);
      if (res.pid !== undefined) info(`pid      ${res.pid}`);
      if (res.jobIds.length) info(`job      ${res.jobIds[0]}${res.jobIds.length > 1 ? ` (auto-resume chain: ${res.jobIds.slice(1).join(', ')})` : ''}`);
    }
    if (!follow) return EXIT.ok;
    return await followAndPrint({
      transport,
      target,
      runId: res.record.runId,
      logPath: res.logPath,
      json,
      evaluation,
      reconnectTimeoutS,
      where: targetWords(args),
    });
  } finally {
    await transport.close().catch(() => undefined);
  }
}
