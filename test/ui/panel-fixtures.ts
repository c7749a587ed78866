// Fixed inputs for the exact per-panel line tables (panel-tables.test.ts).
import type { AlertHistoryEntry } from '../../src/health/alert-history.js';
import type { Alert, LeftoverPhase, LogLine, PreflightPhase, TargetSummary } from '../../src/session/types.js';

const now = Date.parse('2026-05-25T12:00:00');
const oom: Alert = {
  id: 'error:0',
  severity: 'error',
  title: 'cuda-oom: CUDA out of memory',
  step: 41,
  detail:
    'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB',
  advice: 'lower max_tokens_per_mb or add GPUs',
};
const stale: Alert = {
  id: 'staleness',
  severity: 'warning',
  title: 'staleness near the budget',
  step: 40,
  detail: 'offpolicy max 2 of 2',
  advice: 'raise max_head_offpolicyness',
};
const nan: Alert = {
  id: 'nan',
  severity: 'warning',
  title: 'nan grad norm',
  detail: 'ppo_actor/update/grad_norm is nan',
  advice: '',
};
const cleared: AlertHistoryEntry = {
  key: 'nan',
  alert: nan,
  firstSeenAt: now - 3_600_000,
  firstStep: 10,
  lastSeenAt: now - 1_800_000,
  lastStep: 20,
  fired: 2,
  lastFiredAt: now - 2_000_000,
  lastFiredStep: 18,
  active: false,
  clearedAt: now - 1_800_000,
  endedWithRun: false,
};
/** A hang the run died in (killed at 11:50, no step after it): ended with the run, not cleared. */
const hang: AlertHistoryEntry = {
  key: 'health/stall/rollout_wait',
  alert: {
    id: 'health/stall/rollout_wait',
    severity: 'warning',
    title: 'Stalled waiting for the rollout batch (rollout_wait)',
    step: 42,
    detail: 'rollout_wait has run 40 min (median 9 min); the log has been silent for 40 min',
    advice: 'check the rollout workers',
  },
  firstSeenAt: now - 2_400_000,
  firstStep: 42,
  lastSeenAt: now - 600_000,
  lastStep: 42,
  fired: 1,
  lastFiredAt: now - 2_400_000,
  lastFiredStep: 42,
  active: false,
  clearedAt: now - 600_000,
  endedWithRun: true,
};

export const FIX = {
  now,
  alerts: [stale, oom],
  history: [cleared],
  /** The run died in a hang: it ended with the run (most recent first, as the history orders them). */
  diedHistory: [hang, cleared],
  targets: [
    {
      name: 'gpu-head',
      connection: { state: 'ready' },
      runs: [
        {
          id: 'trial-20260525-110000-ab12',
          target: 'gpu-head',
          state: 'running',
          step: 41,
          totalSteps: 640,
          reward: 0.4567,
          lastStepAt: now - 12_000,
        },
        {
          id: 'trial-20260524-090000-ce92',
          target: 'gpu-head',
          state: 'failed',
          step: 640,
          totalSteps: 640,
          reward: 0.61,
          lastStepAt: now - 86_400_000,
        },
      ],
    },
  ] as TargetSummary[],
  leftovers: {
    phase: 'found',
    runId: 'r-1',
    list: [
      { pid: 4242, tagged: true, otherRunId: null, user: 'me', cmd: 'python3 -m areal.launcher.local', gpuMiB: 61234 },
      { pid: 777, tagged: false, otherRunId: null, user: 'bob', cmd: 'python3 serve.py', gpuMiB: 2048 },
    ],
  } as LeftoverPhase,
  preflight: {
    phase: 'done',
    target: 'gpu-head',
    errors: 1,
    warnings: 1,
    blocked: true,
    reason: 'gpus',
    overrides: [],
    checks: [
      { id: 'gpus', result: 'error', seen: '2 of 8 GPUs busy (PID 4242)', todo: 'stop PID 4242 or wait' },
      { id: 'disk', result: 'warning', seen: 'disk 91% full', todo: 'free some space' },
      { id: 'python', result: 'ok', seen: 'python3 3.11', todo: '' },
      { id: 'model', result: 'ok', seen: 'found', todo: '' },
    ],
  } as PreflightPhase,
  log: [
    { seq: 1, level: 'info', time: '2026-05-25T11:59:00', text: 'Epoch 1/10 Step 40/64 Train step 40/640 done.' },
    {
      seq: 2,
      level: 'warning',
      time: '2026-05-25T11:59:10',
      source: 'rollout',
      text: '[EPISODE_TIMEOUT] episode 7 exceeded 600 s',
    },
    {
      seq: 3,
      level: 'error',
      time: '2026-05-25T11:59:30',
      text: 'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB on device 0 while doing something long',
    },
  ] as LogLine[],
};
