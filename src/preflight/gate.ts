// The pre-flight before every `--launch` (and `--launch --resume`): one probe on the target, the
// checks printed, and an error-level check stops the launch before anything is created there —
// unless the user overrides with --skip-preflight, which run.json then records.
// In src/preflight (not src/runs): preflight builds on runs, and runs imports nothing of preflight.
import type { ConfigEvaluation } from '../config/index.js';
import type { Transport } from '../remote/transport.js';
import type { PreflightSummary, Target } from '../runs/index.js';
import { runPreflight } from './run.js';
import { formatChecks } from './format.js';
import type { CheckResult } from './types.js';

export interface GateInput {
  evaluation: ConfigEvaluation;
  target: Target;
  envNames: readonly string[];
  /** --skip-preflight: run and print the checks, but launch whatever they say. */
  skip: boolean;
  /** The run being resumed: its own processes are not leftovers. */
  runId?: string;
  /** The names the resumed run forwarded before (the same forwarding decision as the launch). */
  previouslyForwarded?: readonly string[];
  /** How the user overrides a blocked launch, for the reason line (default: pass --skip-preflight). */
  skipHint?: string;
  /** Ends the probe early (the cockpit quitting mid-launch, a signal): on the target too. */
  signal?: AbortSignal;
  /** Told of that cancel's exec, for a caller about to exit (probe.ts runProbe). */
  onCancel?: (done: Promise<unknown>) => void;
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
      ...(input.previouslyForwarded ? { previouslyForwarded: input.previouslyForwarded } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.onCancel ? { onCancel: input.onCancel } : {}),
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
  if (errors > 0 && input.skip)
    text += `preflight: --skip-preflight given: launching despite ${errors} error${errors === 1 ? '' : 's'} (recorded in run.json)\n`;
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
