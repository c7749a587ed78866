// Public face of src/runs: launch, list, stop, follow and watch runs on a target. The headless CLI,
// the cockpit and `--demo` all go through these, so they never disagree about a run.
export { loadTargets, resolveTarget, setupInWorkdir, targetsFilePath, TargetsFileError } from './targets.js';
export type { Target, TargetFlags, SlurmOptions, Backend } from './targets.js';
export { DEFAULT_SETUP_LIMIT_S, setupLateWords, withSetupLimit } from './setup-limit.js';
export {
  launchRun,
  resumeRun,
  collectSecrets,
  readRecord,
  RunError,
  LaunchCancelled,
  finishedRefusal,
} from './launch.js';
export type { LaunchPlan, LaunchIo, LaunchResult, ResumeIo } from './launch.js';
export { assertWorkdir, checkTwins, defaultWhere } from './twins.js';
export { listRuns, runsRoot, parseListOutput } from './list.js';
export type { RunSummary, ListOptions } from './list.js';
export { stopRun, stoppedBy } from './stop.js';
export type { StopReport } from './stop.js';
export { followRun } from './follow-run.js';
export type { FollowRunOptions, RunFollower } from './follow-run.js';
export { watchRunState } from './watch-state.js';
export type { RunStateWatcher, WatchOptions } from './watch-state.js';
export { deriveRunState, isActive, isTerminal, mayBeActive, canTransition, RESUMABLE_SLURM_ENDS } from './run-state.js';
export type { RunProbe, DerivedState } from './run-state.js';
export {
  RUN_STATES,
  makeRunId,
  isValidRunId,
  parseRunRecord,
  serializeRunRecord,
  runJobIds as runJobIdsOf,
  runNodes,
  runLogPath,
} from './run-record.js';
export type { RunRecord, RunState, Attempt, PreflightSummary } from './run-record.js';
export { batchScript, sbatchArgs } from './slurm-batch.js';
export { parseCli, readProfiles, targetFromFlags, connect, connectExit, ConnectError } from './cli-target.js';
export type { ParsedCli } from './cli-target.js';
export { autoResumeProblem, planFromConfig, planFromEvaluation } from './plan-from-config.js';
export { forwardingFor, missingSecretsMessage } from './forwarding.js';
export type { ForwardDecision, SecretRequirement } from './forwarding.js';
export { evaluationForResume } from './resume-evaluation.js';
export { factsOf, launchedConfigOf, type LaunchedConfig } from './run-facts.js';
export type { PlanInput, PlanResult } from './plan-from-config.js';
