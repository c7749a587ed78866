// `awrl-tui --launch --target T --config FILE [OVERRIDE…] [--follow] [--json] [--force] [--auto-resume N] [--skip-preflight]`
// `awrl-tui --launch --resume RUN --target T [--follow] [--json] [--skip-preflight]`
// Validation happens before any connection: a config error touches nothing on the target. Then the
// pre-flight probes the target; an error-level check stops the launch (exit 2) with nothing created,
// unless --skip-preflight is given (recorded in run.json).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import {
  launchRun,
  resumeRun,
  autoResumeProblem,
  planFromConfig,
  planFromEvaluation,
  RunError,
  assertWorkdir,
  checkTwins,
  finishedRefusal,
  type LaunchResult,
  type Target,
} from '../runs/index.js';
import { parseCli } from '../runs/cli-target.js';
import { connectOrExit } from './connect-target.js';
import { shellQuote } from '../remote/quote.js';
import type { Transport } from '../remote/transport.js';
import type { ConfigEvaluation } from '../config/index.js';
import { evaluationForResume, factsOf, missingSecretsMessage, type ForwardDecision } from '../runs/index.js';
import { preflightGate } from '../preflight/gate.js';
import { HOLD_ENV, holdAt } from '../runs/launch-hold.js';
import { launchSignals } from './launch-signals.js';
import { listRuns } from '../runs/list.js';
import { settledByPreflight } from '../preflight/settled.js';
import type { PreflightSummary, RunRecord } from '../runs/run-record.js';
import { CliError, EXIT } from './errors.js';
import { dumpWipeWarning } from './dump-wipe-warning.js';
import { NODE_NAME } from '../remote/node-fan-out.js';
import { directRunNodes } from '../runs/direct-nodes.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { followAndPrint } from './follow-output.js';
import { withJsonErrors } from './json-errors.js';
import { targetWords, wholeNumber } from './cli-words.js';
import { cliErrorFromRun, cliTarget } from './run-errors.js';
import { cliNotify, NOTIFY_LIST, NO_TERMINAL_NOTIFY } from './notify-words.js';
import { launchSentinelLines, sentinelForLaunch } from './launch-sentinel.js';
import { notifyUrls } from '../notify/index.js';

const OWN = {
  values: ['--config', '--resume', '--auto-resume', '--reconnect-timeout', '--node'],
  lists: [NOTIFY_LIST],
  switches: [
    '--follow',
    '--json',
    '--force',
    '--accept-new-host-key',
    '--skip-preflight',
    NO_TERMINAL_NOTIFY,
    '--no-sentinel',
  ],
};

const out = (s: string) => process.stdout.write(`${s}\n`);
const err = (s: string) => process.stderr.write(`${s}\n`);

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
  const force = p.switches.has('--force');
  const autoResume = wholeNumber('--auto-resume', p.values['--auto-resume'], 0);
  const reconnectTimeoutS = wholeNumber('--reconnect-timeout', p.values['--reconnect-timeout'], 300);
  const resumeId = p.values['--resume'];
  const configFile = p.values['--config'];
  if (!resumeId && !configFile) throw new CliError('--launch needs --config FILE (or --resume RUN)', EXIT.usage);
  if (resumeId && configFile)
    throw new CliError("--resume relaunches with the run's own config: drop --config", EXIT.usage);
  if (resumeId && p.positional.length > 0)
    throw new CliError(`--resume takes no overrides (got '${p.positional[0]}')`, EXIT.usage);

  const target: Target = cliTarget(p.flags);
  // Checked before anything is connected or started; the URLs stay here (never in the run's argv).
  const notify = cliNotify(p, target.notify);
  // The same URLs start the run's sentinel on the target (src/sentinel), which sends with nothing attached.
  const sentinelUrls = notifyUrls({ flags: p.lists[NOTIFY_LIST], profile: target.notify, env: process.env });
  const noSentinel = p.switches.has('--no-sentinel');
  if (p.lists[NOTIFY_LIST] && !follow && noSentinel)
    throw new CliError('--notify with --no-sentinel needs --follow: nothing would watch the run', EXIT.usage, {
      hint: 'drop --no-sentinel (the run watches itself), add --follow, or later: awrl-tui follow RUN --target T --notify URL',
    });
  // A direct multi-node run's nodes, given once (recorded in run.json for the panel and the leftovers).
  const nodeNames = (p.values['--node'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const badNode = nodeNames.find((n) => !NODE_NAME.test(n));
  if (badNode !== undefined) throw new CliError(`--node: '${badNode}' is not a host name`, EXIT.usage);
  if (nodeNames.length > 0 && target.backend === 'slurm')
    throw new CliError("--node names a direct run's hosts: Slurm chooses its own nodes (drop --node)", EXIT.usage);
  if (nodeNames.length > 0 && resumeId)
    throw new CliError('--resume keeps the nodes the run was launched with: drop --node', EXIT.usage);
  const noAutoResume = autoResumeProblem(target, autoResume);
  if (noAutoResume) throw new CliError(noAutoResume, EXIT.usage);
  // Informational lines go to stderr when stdout carries JSON.
  const info = json ? err : out;
  const where = targetWords(args);
  const hold = process.env[HOLD_ENV] || undefined;
  const envNames = Object.keys(process.env).filter((k) => process.env[k] !== undefined && process.env[k] !== '');
  const skipPreflight = p.switches.has('--skip-preflight');

  let planned: Extract<ReturnType<typeof planFromConfig>, { ok: true }> | undefined;
  if (configFile) {
    let text: string;
    try {
      text = readFileSync(configFile, 'utf8');
    } catch (e) {
      throw new CliError(
        `cannot read config ${configFile}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
        EXIT.usage,
        { code: 'file-unreadable' },
      );
    }
    const result = planFromConfig({
      target,
      fileName: configFile,
      text,
      overrides: p.positional,
      env: process.env,
      autoResume,
      force,
    });
    for (const m of result.messages) err(m);
    if (!result.ok) {
      throw new CliError(`${configFile}: ${result.errorCount} error(s); nothing was started`, EXIT.usage, {
        code: 'config-invalid',
        hint: `the errors are listed on stderr; as JSON: awrl-tui config check ${shellQuote(configFile)} --json`,
      });
    }
    refuseMissing(result.forwarding); // before connecting: the same verdict the pre-flight gives
    planned = result;
  }

  // From here until the start script is sent, a signal cancels with nothing on the target.
  const abort = new AbortController();
  let transport: Transport | undefined;
  // A signal during the pre-flight ends its probe on the target: the exit waits for that cancel.
  let cancelling: Promise<unknown> | undefined;
  const signals = launchSignals({
    targetName: target.name,
    where,
    json,
    err,
    abort: () => {
      abort.abort();
      return cancelling;
    },
  });
  try {
    transport = await connectOrExit(target, {
      acceptNewHostKey: p.switches.has('--accept-new-host-key'),
      reconnectTimeoutMs: reconnectTimeoutS * 1000,
    });
    await holdAt(hold, 'connected');
    const t = transport;
    const asRunError = <T>(f: () => Promise<T>) =>
      f().catch((e) => {
        throw e instanceof RunError ? cliErrorFromRun(e) : e;
      });
    // The answers in the order the user needs them: the checkout, then a twin (with the stop
    // command to copy), then the pre-flight's heavier checks.
    await asRunError(() => assertWorkdir(t, target));
    let twins: { allowed: string[] } | undefined;
    let resumed: { evaluation: ConfigEvaluation; record: RunRecord; configPath: string } | null = null;
    let forwarding: ForwardDecision | undefined = planned?.forwarding;
    let allowFinished = false;
    if (planned) {
      twins = await asRunError(() =>
        checkTwins(t, target, { experiment: planned!.plan.experiment, trial: planned!.plan.trial, force, where }),
      );
    } else {
      allowFinished = await agreeToResume(t, target, resumeId!, { force, where, info });
      resumed = await evaluationForResume(t, target, resumeId!, envNames).catch(() => null);
      if (resumed) {
        // A twin of the run's trial comes first here too (resumeRun checks again, just before its start).
        const r = resumed.record;
        await asRunError(() =>
          checkTwins(t, target, { experiment: r.experiment, trial: r.trial, except: r.runId, where }),
        );
        // The same plan builder as a launch, on the run's own config (its warnings, its secrets).
        const again = planFromEvaluation(resumed.evaluation, {
          target,
          fileName: resumed.configPath,
          text: '',
          env: process.env,
          previouslyForwarded: resumed.record.secretNames,
        });
        if (again.ok) {
          for (const w of again.planWarnings) err(w);
          forwarding = again.forwarding;
          refuseMissing(forwarding);
        }
      }
    }
    await holdAt(hold, 'twin-checked');
    let preflight: PreflightSummary | undefined;
    const evaluation = planned?.evaluation ?? resumed?.evaluation ?? null;
    if (evaluation) {
      // A direct multi-node run: pre-flight every node it will use (given, or its Ray cluster's), not the head alone.
      const multi =
        target.backend === 'direct' &&
        (nodeNames.length > 0 || Number((evaluation.resolved as Record<string, any> | null)?.cluster?.n_nodes) > 1);
      const others = multi ? (await directRunNodes(t, target, nodeNames)).nodes.slice(1) : [];
      const gate = await preflightGate(t, {
        evaluation,
        target,
        envNames,
        skip: skipPreflight,
        // A signal ends the probe on the target too (it would run on there otherwise).
        signal: abort.signal,
        onCancel: (done) => (cancelling = done),
        ...(others.length ? { nodes: others } : {}),
        ...(resumeId ? { runId: resumeId, previouslyForwarded: resumed?.record.secretNames ?? [] } : {}),
      });
      // A signal came during the probe: its handler (launch-signals.ts) says so and exits once the
      // probe is ended on the target; nothing more is said or done here.
      if (abort.signal.aborted) return await new Promise<number>(() => undefined);
      info(`preflight on ${target.name}:`);
      info(gate.text.replace(/\n$/, ''));
      // A warning printed above that the target has now answered (actor.path found there).
      for (const d of evaluation.diagnostics.filter(
        (x) => x.severity === 'warning' && settledByPreflight(x, gate.checks),
      )) {
        info(`note: ${d.key} is there on ${target.name}: the warning above (${d.code}) does not apply`);
      }
      if (gate.blocked)
        throw new CliError(gate.reason, EXIT.usage, {
          code: 'preflight-failed',
          hint: 'fix the errors listed on stderr, or pass --skip-preflight to launch anyway',
        });
      preflight = gate.summary;
      const experiment = planned?.plan.experiment ?? resumed?.record.experiment;
      const trial = planned?.plan.trial ?? resumed?.record.trial;
      if (experiment && trial) {
        const wipe = await dumpWipeWarning(t, evaluation, { experiment, trial, runId: resumeId ?? null }, where);
        if (wipe) err(`warning: ${wipe}`);
      }
    } else if (resumeId) {
      // resumeRun says what is wrong when the run itself is missing; otherwise its config no longer reads.
      info(`preflight: skipped (the config of run ${resumeId} could not be read or evaluated on ${target.name})`);
    }
    await holdAt(hold, 'preflight-done');
    const io = {
      env: process.env,
      signal: abort.signal,
      where,
      onStarting: (id: string) => signals.starting(id),
      ...(hold ? { hold } : {}),
      ...(preflight ? { preflight } : {}),
    };
    let res: LaunchResult;
    try {
      res = planned
        ? await launchRun({ ...planned.plan, ...(nodeNames.length ? { nodeNames } : {}) }, t, {
            ...io,
            ...(twins ? { twinsChecked: twins } : {}),
          })
        : await resumeRun(resumeId!, t, target, {
            ...io,
            autoResume,
            allowFinished,
            ...(forwarding ? { secretNames: forwarding.forward } : {}),
          });
    } catch (e) {
      if (e instanceof RunError) throw cliErrorFromRun(e);
      throw new CliError(`launch on ${target.name} failed: ${(e as Error).message}`, EXIT.failed, {
        code: 'remote-failed',
      });
    }
    const interrupted = signals.started(res.record.runId);
    if (res.cleaned.length)
      info(
        `removed what ${res.cleaned.length === 1 ? 'an interrupted launch' : `${res.cleaned.length} interrupted launches`} left (nothing had started): ${res.cleaned.join(', ')}`,
      );
    const sentinel = await sentinelForLaunch(t, target, res.record, {
      urls: sentinelUrls,
      off: noSentinel,
    });
    const summary = {
      runId: res.record.runId,
      target: target.name,
      runDir: res.runDir,
      log: res.logPath,
      ...(res.pid !== undefined ? { pid: res.pid } : {}),
      ...(res.jobIds.length ? { jobIds: res.jobIds } : {}),
      ...(sentinel ? { sentinel } : {}),
    };
    if (json && !follow) out(JSON.stringify(summary));
    else {
      info(`run      ${summary.runId}`);
      info(`target   ${summary.target}`);
      info(`run dir  ${summary.runDir}`);
      info(`log      ${summary.log}`);
      if (res.pid !== undefined) info(`pid      ${res.pid}`);
      if (res.jobIds.length)
        info(
          `job      ${res.jobIds[0]}${res.jobIds.length > 1 ? ` (auto-resume chain: ${res.jobIds.slice(1).join(', ')})` : ''}`,
        );
    }
    const sayS = sentinel && 'error' in sentinel ? err : info;
    for (const l of launchSentinelLines(sentinel, res.record.runId, where, follow)) sayS(l);
    signals.release();
    if (!follow || interrupted) return EXIT.ok;
    return await followAndPrint({
      transport: t,
      target,
      runId: res.record.runId,
      logPath: res.logPath,
      json,
      facts: factsOf(evaluation),
      reconnectTimeoutS,
      where,
      stdoutShared: true,
      notify: { ...notify, announceEnd: true },
    });
  } finally {
    signals.release();
    await transport?.close().catch(() => undefined);
  }
}

function refuseMissing(f: ForwardDecision): void {
  if (f.missing.length > 0)
    throw new CliError(missingSecretsMessage(f.missing), EXIT.usage, { code: 'secret-missing' });
}

/**
 * `--launch --resume` of a run that finished: it would train again from its last recover
 * checkpoint. Asked in a terminal; elsewhere it needs --force. True when the user agreed.
 */
async function agreeToResume(
  t: Transport,
  target: Target,
  runId: string,
  o: { force: boolean; where: string; info: (s: string) => void },
): Promise<boolean> {
  const r = (await listRuns(t, target, { only: runId, tailBytes: 0 }).catch(() => []))[0];
  if (!r || r.state !== 'finished') return false;
  const refusal = finishedRefusal(runId, r.detail);
  if (o.force) {
    o.info(`run ${runId} finished (${r.detail}); --force: it runs again from its last recover checkpoint`);
    return true;
  }
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) throw cliErrorFromRun(refusal);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // Ctrl-C at the question cancels the launch (nothing was started), as anywhere before the start.
  rl.on('SIGINT', () => {
    rl.close();
    process.kill(process.pid, 'SIGINT');
  });
  try {
    const answer = await rl.question(
      `run ${runId} finished (${r.detail}). Resuming runs it again from its last recover checkpoint. Resume it? [y/N] `,
    );
    if (/^y(es)?$/i.test(answer.trim())) return true;
  } finally {
    rl.close();
  }
  throw cliErrorFromRun(finishedRefusal(runId, r.detail));
}
