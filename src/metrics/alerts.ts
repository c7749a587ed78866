// Alert rules: pure functions over the store and the event stream, returning plain data the
// cockpit renders and `--follow --json` can print. Each rule says what to do, not only what is wrong.
import type { TrainerEvent } from '../trainer-log/events.js';
import { ErrorAlertTracker } from './alert-errors.js';
import type { RunConfigFacts } from './derive.js';
import { firstLogged, STALENESS_MAX_KEYS } from './stat-keys.js';
import type { MetricsStore } from './store.js';
import { rlAlerts } from './rl-alerts.js';
import { RL_WARNING_KEYS } from './rl-health.js';

export { ErrorAlertTracker, MAX_ACTIVE_ERRORS, NONFATAL_ERROR_STEPS } from './alert-errors.js';

export interface Alert {
  id: string;
  severity: 'error' | 'warning' | 'info';
  title: string;
  detail: string;
  advice: string;
  step?: number;
  /** When it happened (an error: its first occurrence). */
  time?: string;
  /** An error alert that groups identical failures (ErrorAlertTracker): how many, and the time of
   *  the latest (`time` is the first's). Absent: one. A notifier sends one message for the group. */
  count?: number;
  lastTime?: string;
}

export interface AlertContext extends RunConfigFacts {
  /** Now on the trainer's naive clock (isoTimeToMs of a printed time). When our clock and the
   *  log's differ, the caller maps ours onto the log's (RunAlerts.logNow: the latest record's time
   *  plus the wall time since it arrived), so the stall rule reads one clock only. */
  now?: number;
  /** Another alert speaks for the wait: the health rules (src/health) judge the hang in progress
   *  (they know the phase the trainer is in, or that it just resumed, so their alert says where it
   *  is stuck), or an error since the last restart explains why no step comes. This rule then stays
   *  silent: one hang, one alert. See HealthMonitor.judgesStall and RunAlerts. */
  stallJudgedElsewhere?: boolean;
  /** The health rules own the staleness above budget now: every step since a resume was over it
   *  (src/health/resume-guard.ts, `health/resume/staleness`: the recovery is the suspect). The
   *  steady-staleness rule here then stays silent: one condition, one alert (see RunAlerts). */
  stalenessJudgedElsewhere?: boolean;
  /** actor.behav_imp_weight_cap: null when the config sets none, undefined when not known here
   *  (the behaviour-weight spike rule speaks only for a config known to set no cap). */
  behavImpWeightCap?: number | null;
}

export const KEYS = {
  gradNorm: 'ppo_actor/update/grad_norm',
  updateOk: 'ppo_actor/update/update_successful',
  reward: 'rollout/reward',
  stalenessMax: 'staleness/gap/offpolicy_max',
  importanceWeight: 'ppo_actor/update/importance_weight/avg',
  behaveWeight: 'ppo_actor/update/behave_imp_weight/avg',
  omniboxesFailed: 'rollout/omniboxes_failed',
} as const;

/** The stats keys these rules read as series (store.recent/latest); every other key they read
 *  from the latest step alone (store.current). A store kept for the rules only keeps these
 *  (StoreOptions.seriesKeys). A rule that starts reading a key's history adds it here. */
export const RULE_SERIES_KEYS: readonly string[] = [...new Set<string>([KEYS.reward, ...RL_WARNING_KEYS])];

function stepOf(store: MetricsStore): { step?: number; time?: string } {
  const last = store.lastStepEvent;
  return last ? { step: last.globalStep, time: last.time } : {};
}

/** A stats value in an alert's detail: nan, inf and -inf as the trainer prints them. */
function fmt(v: number | null): string {
  if (v === null) return '(no number)';
  return Number.isFinite(v) ? String(Number(v.toPrecision(4))) : Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
}

export function evaluateAlerts(store: MetricsStore, events: readonly TrainerEvent[], ctx: AlertContext = {}): Alert[] {
  const alerts = stepAlerts(store, ctx);
  const stall = ctx.stallJudgedElsewhere ? null : stallAlert(store, ctx);
  if (stall) alerts.push(stall);

  // One-shot form: the errors of `events` still standing at its end (see ErrorAlertTracker).
  if (events.length) {
    const errors = new ErrorAlertTracker();
    for (const e of events) errors.ingest(e);
    alerts.push(...errors.alerts());
  }
  return alerts;
}

/** What the rules over the latest steps read of the context: with the store's `rulesVersion`,
 *  all that `stepAlerts` depends on (a caller that asks at every record answers from a cache). */
export type StepRuleContext = Pick<
  AlertContext,
  'maxHeadOffpolicyness' | 'stalenessJudgedElsewhere' | 'behavImpWeightCap'
>;

/** Every rule but the stall: what the latest steps say. They read the store's steps only (what
 *  moves its `rulesVersion`) and the context's budget, never the clock. */
export function stepAlerts(store: MetricsStore, ctx: StepRuleContext): Alert[] {
  const alerts: Alert[] = [];
  const at = stepOf(store);

  // The single-step rules read the latest step record only: a key it lacks says nothing (an older
  // step's nan must not stay alerted, nor clear a newer one).
  const g = store.current(KEYS.gradNorm);
  if (g !== undefined) {
    if (g === null || !Number.isFinite(g)) {
      alerts.push({
        id: 'grad-norm-nonfinite',
        severity: 'error',
        title: 'Gradient norm is not finite',
        detail: `${KEYS.gradNorm} = ${fmt(g)}`,
        advice:
          'The update was likely skipped; if it repeats, lower the learning rate or check the rewards and advantages for nan.',
        ...at,
      });
    }
  }
  const ok = store.current(KEYS.updateOk) ?? null;
  if (ok !== null && ok < 1) {
    alerts.push({
      id: 'update-unsuccessful',
      severity: 'warning',
      title: 'Optimizer update was not successful',
      detail: `${KEYS.updateOk} = ${fmt(ok)}`,
      advice: 'Some updates were skipped (non-finite gradients); watch the grad norm and the loss.',
      ...at,
    });
  }

  const r = store.recent(KEYS.reward, 3);
  if (r.values.length === 3 && r.values.every((v) => v === 0)) {
    alerts.push({
      id: 'reward-zero',
      severity: 'error',
      title: 'Reward is exactly 0 for 3 steps',
      detail: `${KEYS.reward} = 0 at steps ${r.steps.join(', ')}`,
      advice:
        'Likely the SGLang VLM cache overflowing on screenshots: set SGLANG_VLM_CACHE_SIZE_MB >= 8192 in actor.scheduling_spec[0].env_vars.',
      ...at,
    });
  }

  const budget = ctx.maxHeadOffpolicyness;
  // webgym's gap key, or upstream AReaL's version_stats lag to θ.
  const logged = firstLogged(STALENESS_MAX_KEYS, (k) => store.current(k));
  const sMax = logged?.value ?? null;
  // Steady staleness: the latest step over budget. Right after a resume the resume guard speaks
  // instead (stalenessJudgedElsewhere), so the two never stand for the same records.
  if (budget !== undefined && sMax !== null && sMax > budget && !ctx.stalenessJudgedElsewhere) {
    alerts.push({
      id: 'staleness-over-budget',
      severity: 'warning',
      title: 'Staleness above budget in steady training',
      detail: `${logged!.key} = ${fmt(sMax)} > rollout.max_head_offpolicyness = ${budget} at the latest step, outside the first steps of a resumed attempt`,
      advice: 'Rollouts lag the policy more than allowed: check the rollout/actor GPU split and the rollout wait time.',
      ...at,
    });
  }

  for (const key of [KEYS.importanceWeight, KEYS.behaveWeight]) {
    const w = store.current(key) ?? null;
    // Compared with the bounds themselves, not |w - 1| > 0.1: 1.1 - 1 is 0.10000000000000009 in
    // floating point, so a printed 1.1000e+00 (exactly 10%) fired while 9.0000e-01 did not.
    if (w !== null && (w > 1.1 || w < 0.9)) {
      alerts.push({
        id: `drift:${key}`,
        severity: 'warning',
        title: 'Importance weights drift from 1',
        detail: `${key} = ${fmt(w)} (more than 10% from 1.0)`,
        advice:
          'Behaviour and current policy diverge: reduce staleness (max_head_offpolicyness) or check actor.behav_imp_weight_cap.',
        ...at,
      });
    }
  }

  const failed = store.current(KEYS.omniboxesFailed) ?? null;
  if (failed !== null && failed > 0.05) {
    alerts.push({
      id: 'omniboxes-failed',
      severity: 'warning',
      title: 'Browser environments failing',
      detail: `${KEYS.omniboxesFailed} = ${fmt(failed)} (> 5%)`,
      advice:
        'The Omniboxes cluster is failing allocations: check its health and the token variable (webgym.cpu_cluster_token_env_var).',
      ...at,
    });
  }

  // The RL-health early warnings (behaviour-weight spike with no cap, entropy collapse, failures
  // growing while success holds): their trends read the store's series.
  alerts.push(...rlAlerts(store, ctx.behavImpWeightCap));
  return alerts;
}

/** No step for 3 median step times (unless another rule speaks for the wait: the caller says). */
export function stallAlert(store: MetricsStore, ctx: AlertContext): Alert | null {
  if (store.finished || store.lastStepEvent === null) return null;
  const med = store.medianStepTime();
  if (med === null || med <= 0) return null;
  if (ctx.now === undefined || store.awaitingStepSinceMs === null) return null;
  // A restart (resume/start record) after the last step starts the wait afresh: the time before it
  // was the crash and the restart, which the error alerts explain; "stalled since step N" is wrong.
  const elapsedS = (ctx.now - store.awaitingStepSinceMs) / 1000;
  if (elapsedS <= 3 * med) return null;
  return {
    id: 'stall',
    severity: 'warning',
    title: 'No new step for a while',
    detail: `${Math.round(elapsedS)} s since step ${store.lastStepEvent.globalStep}, median step time ${Math.round(med)} s`,
    advice:
      'Check the rollout wait (prepare_batch), the Omniboxes cluster and the worker output for a hang; an NCCL hang ends after the 2 h watchdog.',
    step: store.lastStepEvent.globalStep,
    time: store.lastStepEvent.time,
  };
}
