// Pre-flight checks against the live target: what would fail 20 minutes into a 64-GPU launch.
export { runPreflight, runPreflightReport, type PreflightOptions, type PreflightReport } from './run.js';
export { evaluatePreflight, checkSecrets, hasErrors } from './evaluate.js';
export { formatChecks } from './format.js';
export { settledByPreflight, unsettledDiagnostics } from './settled.js';
export { runProbe, probeArgv, ProbeError, type ProbeParams } from './probe.js';
export { estimateParams, CHECKPOINT_BYTES_PER_PARAM } from './checks-disk.js';
export { parseSlurmTime } from './slurm-time.js';
export { parseSinfo } from './checks-slurm.js';
export type { PreflightInput, PreflightTargetInfo } from './input.js';
export type { CheckResult, ProbeFacts, GpuNodeFacts, ProcessFacts, ProbeCommandResult } from './types.js';
export {
  findLeftovers,
  stopLeftovers,
  formatLeftovers,
  leftoverCommand,
  parseLeftoverFanOut,
  type Leftover,
  type LeftoverOptions,
  type NodeFailure,
  type SweepReport,
} from './leftovers.js';
