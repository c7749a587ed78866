// The pre-flight before every `--launch` (and `--launch --resume`): one probe on the target, the
// checks printed, and an error-level check stops the launch before anything is created there —
// unless the user overrides with --skip-preflight, which run.json then records.
// Imports src/preflight's modules directly and is not re-exported by runs/index: src/preflight
// imports runs modules itself, so going through either index would make an import cycle.
import { evaluateConfig, type ConfigEvaluation } from '../config/index.js';
import type { Transport } from '../remote/transport.js';
import { runPreflight } from '../preflight/run.js';
import { formatChecks } from '../preflight/format.js';
import type { CheckResult } from '../preflight/types.js';
import type { Target } from './targets.js';
import type { PreflightSummary } from './run-record.js';
import { readRecord } from './launch.js';
import { runsRoot } from './list.js';
import { isValidRunId } from './run-record.js';

export interface GateInput {
  evaluation: ConfigEvaluation;
  target: Target;
  envNames: readonly string[];
  /** --skip-preflight: run and print the checks, but launch whatever they say. */
  skip: boolean;
  /** The run being resumed: its own processes are not leftovers. */
  runId?: string;
  /** How the user overrides a blocked launch, for the reason line (default: pass --skip-preflight). */
  skipHint?: string;
  /** A direct multi-node run's other nodes (given with --node or discovered): their GPUs are checked too. */
  nodes?: string[];
}

export interface GateResult {
  /** Ready to print (the check list, or why the probe could not run). */
  text: string;
  checks: CheckResult[];
  summary: PreflightSummary;
  /** The launch must not go ahead. */
  blocked: boolean;
  /** One line for the user when blocked. */
  reason: string;
}

export async function preflightGate(transport: Transport, input: GateInput): Promise<GateResult> {
  const { target } = input;
  const hint = input.skipHint ?? 'pass --skip-preflight';
  let checks: CheckResult[];
  try {
    checks = await runPreflight(transport, {
      evaluation: input.evaluation,
      target,
      envNames: input.envNames,
      ...(input.runId ? { runId: input.runId, resuming: true } : {}),
      ...(input.nodes?.length ? { nodes: input.nodes } : {}),
    });
  } catch (e) {
    const why = (e as Error).message;
    return {
      text: `preflight: could not run on ${target.name}: ${why}\n`,
      checks: [],
      summary: { skipped: input.skip, errors: 0, warnings: 0, failed: why },
      blocked: !input.skip,
      reason: `preflight could not run on ${target.name} (${why}); nothing was started: ${hint} to launch anyway`,
    };
  }
  const errors = checks.filter((c) => c.result === 'error').length;
  const warnings = checks.filter((c) => c.result === 'warning').length;
  const blocked = errors > 0 && !input.skip;
  let text = formatChecks(checks);
  if (errors > 0 && input.skip) text += `preflight: --skip-preflight given: launching despite ${errors} error${errors === 1 ? '' : 's'} (recorded in run.json)\n`;
  return {
    text,
    checks,
    summary: { skipped: input.skip, errors, warnings },
    blocked,
    reason: blocked
      ? `preflight found ${errors} error${errors === 1 ? '' : 's'} on ${target.name}: nothing was started (fix ${errors === 1 ? 'it' : 'them'}, or ${hint} to launch anyway)`
      : '',
  };
}

/**
 * The config of a run being resumed, evaluated as it was launched: its uploaded config.yaml plus the
 * overrides in its recorded argv (`python webgym/train.py --config PATH ++k=v …`). Null when the run
 * or its config cannot be read (resumeRun then says what is wrong) or the config no longer evaluates.
 */
export async function evaluationForResume(
  transport: Transport,
  target: Target,
  runId: string,
  envNames: readonly string[],
): Promise<ConfigEvaluation | null> {
  if (!isValidRunId(runId)) return null;
  const record = await readRecord(transport, `${runsRoot(target)}/${runId}`);
  if (!record) return null;
  const at = record.argv.indexOf('--config');
  if (at < 0) return null;
  const configPath = record.argv[at + 1];
  let text: string;
  try {
    text = (await transport.readFile(configPath)).toString('utf8');
  } catch {
    return null;
  }
  const ev = evaluateConfig({ fileName: configPath, text, overrides: record.argv.slice(at + 2), envNames: [...envNames] });
  return ev.hasErrors || !ev.resolved ? null : ev;
}
