// The health of async GRPO for a web agent, grouped by the question a researcher asks (issue #32,
// from AsyncWebRL's README and plotting script): each figure with the stats key it comes from
// (webgym_workflow.py's `rollout/*` scalars, AReaL's `ppo_actor/*`, `staleness/*`, `timeperf/*`)
// and a one-line definition. A key the run's log never printed is "not in this run's log", never 0.
// Plus the early-warning rules the reference config's own comments tell: a behaviour importance
// weight spike with no cap (its 14.65 at step 14 preceded a reward drop), entropy collapse, failure
// trajectories growing while success holds. Pure: reads a store of step stats.

export const NOT_IN_LOG = "not in this run's log";

/** What this module reads of src/metrics' MetricsStore. */
export interface StatSource {
  has(key: string): boolean;
  latest(key: string): number | null;
  /** The whole run's values of a key, oldest first (at most a few dozen: bucketed where longer). */
  history(key: string): (number | null)[];
  keys(): string[];
}

export interface RlFacts {
  /** actor.behav_imp_weight_cap: null when the config sets none; undefined when not known here. */
  behavImpWeightCap?: number | null;
  /** rollout.max_head_offpolicyness, when known. */
  maxHeadOffpolicyness?: number;
}

export interface RlCounts {
  /** `[EPISODE_TIMEOUT]` warnings read so far. */
  episodeTimeouts: number;
  /** `[PROMPT_OVERFLOW]` warnings read so far. */
  promptOverflows: number;
}

export interface HealthFigure {
  label: string;
  /** Where it comes from: a stats key (or key pattern), or the log lines counted. */
  source: string;
  definition: string;
  /** The figure as shown; NOT_IN_LOG when the log never had it. */
  text: string;
  /** Worth a look (the early-warning rules, a budget or cap exceeded). */
  warn?: boolean;
}

export interface HealthGroup {
  question: string;
  figures: HealthFigure[];
}

/** A number as the table shows it: 4 significant digits, nan/inf as printed. */
export function fmt(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return String(Number(v.toPrecision(4)));
}

function fig(
  s: StatSource,
  key: string,
  label: string,
  definition: string,
  extra?: (v: number | null) => string,
): HealthFigure {
  if (!s.has(key)) return { label, source: key, definition, text: NOT_IN_LOG };
  const v = s.latest(key);
  return { label, source: key, definition, text: fmt(v) + (extra ? extra(v) : '') };
}

/** Several keys of one family on one row (`easy 0.6 · medium 0.4 …`), or NOT_IN_LOG for none. */
function family(
  s: StatSource,
  label: string,
  source: string,
  definition: string,
  parts: [string, string][],
): HealthFigure {
  const shown = parts.filter(([, k]) => s.has(k)).map(([name, k]) => `${name} ${fmt(s.latest(k))}`);
  return { label, source, definition, text: shown.length ? shown.join(' · ') : NOT_IN_LOG };
}

const mean = (xs: (number | null)[]): number | null => {
  const ok = xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : null;
};

export function rlHealthGroups(s: StatSource, facts: RlFacts, counts: RlCounts): HealthGroup[] {
  const actions = s
    .keys()
    .filter((k) => /^rollout\/action_.+_rate$/.test(k))
    .sort()
    .map((k): [string, string] => [k.slice('rollout/action_'.length, -'_rate'.length), k]);
  const cap = facts.behavImpWeightCap;
  const capText =
    cap === undefined ? ' (cap: config not known here)' : cap === null ? ' (no cap set)' : ` (cap ${fmt(cap)})`;
  const behaveMax = s.has('ppo_actor/update/behave_imp_weight/max')
    ? s.latest('ppo_actor/update/behave_imp_weight/max')
    : null;
  const budget = facts.maxHeadOffpolicyness;
  const stalenessMax = s.has('staleness/gap/offpolicy_max') ? s.latest('staleness/gap/offpolicy_max') : null;
  const diff = Array.from({ length: 10 }, (_, i): [string, string] => [`${i + 1}`, `rollout/diff_${i + 1}/reward`]);
  return [
    {
      question: 'Is it learning?',
      figures: [
        fig(
          s,
          'rollout/reward',
          'reward (success rate)',
          "mean reward of the step's finished, not blocked episodes (0 or 1 each: the success rate)",
        ),
        family(
          s,
          'reward by tier',
          'rollout/{easy,medium,hard}/reward',
          'mean reward by difficulty tier: easy 1-3, medium 4-6, hard 7-10',
          [
            ['easy', 'rollout/easy/reward'],
            ['medium', 'rollout/medium/reward'],
            ['hard', 'rollout/hard/reward'],
          ],
        ),
        family(s, 'reward by difficulty', 'rollout/diff_N/reward', 'mean reward at each task difficulty 1-10', diff),
      ],
    },
    {
      question: 'What do trajectories look like?',
      figures: [
        family(
          s,
          'steps: success / failure',
          'rollout/{success,failure}/num_steps',
          'mean browser steps of episodes with reward > 0.5 / <= 0.5',
          [
            ['success', 'rollout/success/num_steps'],
            ['failure', 'rollout/failure/num_steps'],
          ],
        ),
        fig(
          s,
          'rollout/avg_response_tokens_per_step',
          'response tokens per step',
          'mean tokens the policy generated per browser step',
        ),
        family(s, 'action mix', 'rollout/action_<key>_rate', "share of an episode's steps per action kind", actions),
        fig(
          s,
          'rollout/unchanged_screenshot_rate',
          'unchanged screenshots',
          'share of steps after which the page did not change',
        ),
        fig(s, 'rollout/stuck_rate', 'stuck', 'share of steps with an unchanged page and an action other than wait'),
      ],
    },
    {
      question: 'Is the policy drifting?',
      figures: [
        fig(
          s,
          'ppo_actor/update/importance_weight/max',
          'importance weight max',
          'largest pi_new / pi_prox ratio of the update (should stay near 1)',
        ),
        {
          ...fig(
            s,
            'ppo_actor/update/behave_imp_weight/max',
            'behaviour weight max',
            'largest pi_prox / pi_behav ratio (decoupled loss), against actor.behav_imp_weight_cap',
            () => capText,
          ),
          warn:
            behaveMax !== null &&
            (cap === null ? behaveMax > RL_THRESHOLDS.behaveWeightSpike : cap !== undefined && behaveMax > cap),
        },
        fig(
          s,
          'ppo_actor/behave_cap_ratio',
          'dropped by the cap',
          'share of tokens whose behaviour weight the cap dropped',
        ),
        fig(s, 'ppo_actor/update/clip_ratio/avg', 'clip ratio', 'share of tokens clipped by eps_clip'),
        fig(
          s,
          'ppo_actor/update/approx_kl/avg',
          'approx KL',
          'approximate KL divergence of the update from the proximal policy',
        ),
        fig(
          s,
          'ppo_actor/update/entropy/avg',
          'entropy',
          'mean token entropy of the policy (a collapse: it falls towards 0)',
        ),
        fig(s, 'ppo_actor/update/grad_norm', 'grad norm', 'gradient norm before clipping'),
      ],
    },
    {
      question: 'How stale are the samples?',
      figures: [
        {
          ...fig(
            s,
            'staleness/gap/offpolicy_max',
            'staleness max',
            'largest policy-version lag of the tokens trained on, against rollout.max_head_offpolicyness',
            () => (budget === undefined ? ' (budget: config not known here)' : ` (budget ${budget})`),
          ),
          warn: stalenessMax !== null && budget !== undefined && stalenessMax > budget,
        },
        fig(s, 'staleness/gap/offpolicy_avg', 'staleness mean', 'mean policy-version lag of the tokens trained on'),
        family(
          s,
          'rollouts accepted / rejected',
          'staleness/rollout/trajectories_{accepted,rejected}',
          'episodes the staleness manager let into / kept out of training',
          [
            ['accepted', 'staleness/rollout/trajectories_accepted'],
            ['rejected', 'staleness/rollout/trajectories_rejected'],
          ],
        ),
        family(
          s,
          'rollout vs train time',
          'timeperf/{rollout,train_step}',
          'seconds the step waited for its batch / spent in the PPO update',
          [
            ['rollout', 'timeperf/rollout'],
            ['train', 'timeperf/train_step'],
          ],
        ),
      ],
    },
    {
      question: 'Is the environment failing?',
      figures: [
        fig(
          s,
          'rollout/omniboxes_failed',
          'Omniboxes failures',
          'share of episodes lost to the browser pool (HTTP errors, no instance)',
        ),
        fig(s, 'rollout/evaluator_failed', 'evaluator failures', 'share of episodes whose reward model call threw'),
        fig(s, 'rollout/blocking_rate', 'blocked', 'share of episodes on a website that blocked the agent'),
        {
          label: 'episode timeouts',
          source: '[EPISODE_TIMEOUT] warnings',
          definition: 'episodes cut at episode_timeout_minutes, counted in the log read so far',
          text: String(counts.episodeTimeouts),
        },
        {
          label: 'prompt overflows',
          source: '[PROMPT_OVERFLOW] warnings',
          definition: 'steps whose prompt + max_new_tokens exceeded the context, counted in the log read so far',
          text: String(counts.promptOverflows),
        },
      ],
    },
  ];
}

export interface RlWarning {
  id: string;
  title: string;
  detail: string;
  /** The rule and its threshold, in words (an alert states it). */
  rule: string;
  /** The stats key it reads first. */
  key: string;
}

/** The early-warning rules' thresholds (the screen and the alerts read the same). The histories are
 *  the run's values bucketed into at most HISTORY_POINTS points (each bucket's last value), so
 *  "the first 10" of a 640-step run are its first 100 steps. */
export const RL_THRESHOLDS = {
  /** behaviour importance weight max above this with actor.behav_imp_weight_cap null (unset). */
  behaveWeightSpike: 5,
  /** entropy: the mean of the last 5 points under this share of the mean of the first 10 (≥ 20 points). */
  entropyCollapseShare: 0.5,
  /** failure num_steps: the mean of the last 10 points at least this × the first 10 (≥ 20 points)… */
  failureGrowth: 1.3,
  /** …while the mean reward of the last 10 stays at least this share of the first 10. */
  rewardHeldShare: 0.9,
  /** Points a history needs before the trend rules speak. */
  minPoints: 20,
} as const;

/** Points of a key's history the trend rules read. */
export const HISTORY_POINTS = 64;

/** The stats keys the early-warning rules read as series. */
export const RL_WARNING_KEYS = [
  'ppo_actor/update/behave_imp_weight/max',
  'ppo_actor/update/entropy/avg',
  'rollout/failure/num_steps',
  'rollout/reward',
] as const;

/** The early-warning rules, on the latest steps. A key the log never printed says nothing; the
 *  spike rule speaks only where the config is known to set no cap. */
export function rlWarnings(s: StatSource, facts: RlFacts): RlWarning[] {
  return [...spikeWarnings(s, facts), ...trendWarnings(s)];
}

/** The warning read from the latest step alone (cheap: asked at every step). */
export function spikeWarnings(s: StatSource, facts: RlFacts): RlWarning[] {
  const out: RlWarning[] = [];
  const bw = 'ppo_actor/update/behave_imp_weight/max';
  if (s.has(bw) && facts.behavImpWeightCap === null) {
    const v = s.latest(bw);
    // The reference config: ~99% of tokens sit in [0.5, 3]; one spike to 14.65 with cap=null
    // dropped reward to 0.103 two steps later.
    if (v !== null && v > RL_THRESHOLDS.behaveWeightSpike)
      out.push({
        id: 'rl/behave-weight-spike',
        key: bw,
        rule: `max > ${RL_THRESHOLDS.behaveWeightSpike} with actor.behav_imp_weight_cap unset`,
        title: `behaviour importance weight max ${fmt(v)} with no cap`,
        detail:
          'a spike like this (14.65 at step 14 in the reference run) preceded a reward drop: set actor.behav_imp_weight_cap (5.0 in the reference config)',
      });
  }
  return out;
}

/** The warnings read from trends over the run's bucketed history (each reads whole series). */
export function trendWarnings(s: StatSource): RlWarning[] {
  const out: RlWarning[] = [];
  const ent = s.history('ppo_actor/update/entropy/avg');
  const T = RL_THRESHOLDS;
  if (ent.length >= T.minPoints) {
    const first = mean(ent.slice(0, 10));
    const last = mean(ent.slice(-5));
    if (first !== null && last !== null && first > 0 && last < T.entropyCollapseShare * first)
      out.push({
        id: 'rl/entropy-collapse',
        key: 'ppo_actor/update/entropy/avg',
        rule: `mean of the last 5 points < ${T.entropyCollapseShare} × the first 10's, over ≥ ${T.minPoints} points`,
        title: `entropy collapse: ${fmt(last)} over the last 5 steps, ${fmt(first)} over the first 10`,
        detail: 'the policy is becoming deterministic: check the learning rate, the clip ratio and the reward mix',
      });
  }
  const fail = s.history('rollout/failure/num_steps');
  const reward = s.history('rollout/reward');
  if (fail.length >= T.minPoints && reward.length >= T.minPoints) {
    const f0 = mean(fail.slice(0, 10));
    const f1 = mean(fail.slice(-10));
    const r0 = mean(reward.slice(0, 10));
    const r1 = mean(reward.slice(-10));
    if (
      f0 !== null &&
      f1 !== null &&
      r0 !== null &&
      r1 !== null &&
      f0 > 0 &&
      f1 >= T.failureGrowth * f0 &&
      r1 >= T.rewardHeldShare * r0
    )
      out.push({
        id: 'rl/failure-length',
        key: 'rollout/failure/num_steps',
        rule:
          `last 10 points' mean ≥ ${T.failureGrowth} × the first 10's while rollout/reward's stays ≥ ` +
          `${T.rewardHeldShare} × its first 10's, over ≥ ${T.minPoints} points`,
        title: `failed trajectories grew from ${fmt(f0)} to ${fmt(f1)} steps while reward held (${fmt(r0)} → ${fmt(r1)})`,
        detail:
          'long failures cost rollout time and can push the policy to wander: compare success/failure num_steps by tier',
      });
  }
  return out;
}
