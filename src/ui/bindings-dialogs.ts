// The bindings of the dialogs and overlays that take every key while open: the `?` help, the alert
// history, the launch confirmation, the leftover list, a line being typed, and a server's login prompt. Part of the one
// binding table (bindings.ts puts them after the screens' bindings, in this order).
import { act, clamp, moveBy, MOVE_KEYS, same, type Binding, type Result } from './binding-keys.js';
import type { UiState } from './ui-state.js';
import { trajAtStep } from './traj-nav.js';

/** The auto-resume counts `a` steps through in the launch confirmation (0: none). */
export const AUTO_RESUME_STEPS: readonly number[] = [0, 1, 2, 3, 5, 10];

/** The confirmation's auto-resume choice, for the launch effect (nothing when none). */
function autoResumeOf(s: UiState): { autoResume?: number } {
  const n = s.confirm?.kind === 'launch' ? (s.confirm.autoResume ?? 0) : 0;
  return n > 0 ? { autoResume: n } : {};
}

/** The launch with what the dialog set (no options: none given). */
function launchEffect(o: { skipPreflight?: boolean; autoResume?: number }) {
  return act.launch(Object.keys(o).length ? o : undefined);
}

export const DIALOG_BINDINGS: readonly Binding[] = [
  // The help overlay: any key not listed closes it.
  {
    keys: MOVE_KEYS,
    scopes: ['help'],
    command: 'help-scroll',
    description: 'scroll the help (when longer than the screen)',
    disabledReason: (ctx) => ((ctx.helpScrollMax ?? 0) > 0 ? null : 'fits'),
    run: (s, ctx, n) =>
      same({ ...s, helpScroll: clamp(s.helpScroll + moveBy(n, ctx.page), 0, ctx.helpScrollMax ?? 0) }),
  },
  // The alert history: a list to read; a stray key must not close it.
  {
    keys: ['esc', 'q'],
    scopes: ['history'],
    command: 'history-close',
    description: 'close the alert history',
    short: 'closes',
    run: (s) => same({ ...s, history: false, historyScroll: 0 }),
  },
  {
    keys: MOVE_KEYS,
    scopes: ['history'],
    command: 'history-scroll',
    description: 'scroll the alert history',
    short: 'scroll',
    run: (s, ctx, n) =>
      same({ ...s, historyScroll: clamp(s.historyScroll + moveBy(n, ctx.page), 0, ctx.historyScrollMax ?? 0) }),
  },
  {
    keys: ['e'],
    scopes: ['history'],
    command: 'history-episodes',
    description: "the marked alert's episodes: the Trajectories screen (7) at the policy version its step trained with",
    short: 'episodes',
    disabledReason: (ctx) => (ctx.historyStep == null ? 'e: the marked alert has no step' : null),
    run: (s, ctx) =>
      same({ ...s, history: false, historyScroll: 0, screen: 'trajectories', traj: trajAtStep(ctx.historyStep!) }, [
        act.listTrajectories(),
      ]),
  },
  // The launch confirmation.
  {
    keys: MOVE_KEYS,
    scopes: ['launch'],
    command: 'argv-scroll',
    description: 'scroll the argv',
    short: 'scroll',
    run: (s, ctx, n) =>
      same({ ...s, argvScroll: clamp(s.argvScroll + moveBy(n, ctx.page), 0, ctx.argvScrollMax ?? 0) }),
  },
  {
    keys: ['y'],
    scopes: ['launch'],
    command: 'launch-yes',
    description: 'launch (after a clean pre-flight)',
    short: 'launch',
    shown: true,
    disabledReason: (ctx) =>
      ctx.preflight === 'ok'
        ? null
        : ctx.preflight === 'blocked'
          ? 'y: the pre-flight found errors (S launches anyway)'
          : ctx.preflight === 'refused'
            ? 'y: a run of this trial is active (stop it, or add trial_name=OTHER)'
            : 'y: waiting for the pre-flight',
    run: (s) => same({ ...s, confirm: null }, [launchEffect(autoResumeOf(s))]),
  },
  {
    keys: ['S'],
    scopes: ['launch'],
    command: 'launch-anyway',
    description: 'launch despite pre-flight errors (recorded in run.json)',
    short: 'launch anyway',
    shown: true,
    disabledReason: (ctx) =>
      ctx.preflight === 'blocked'
        ? null
        : ctx.preflight === 'refused'
          ? 'S: a run of this trial is active; the launch refuses it whatever the pre-flight says'
          : 'S: only after a pre-flight that found errors',
    run: (s) => same({ ...s, confirm: null }, [launchEffect({ skipPreflight: true, ...autoResumeOf(s) })]),
  },
  {
    keys: ['a'],
    scopes: ['launch'],
    command: 'launch-auto-resume',
    description: `auto-resume (Slurm): resubmit the job up to N times after TIMEOUT, PREEMPTED or NODE_FAIL, as --auto-resume N (a steps N through ${AUTO_RESUME_STEPS.join(' ')})`,
    short: 'auto-resume',
    shown: true,
    disabledReason: (ctx) =>
      ctx.launchBackend === 'slurm'
        ? null
        : ctx.launchBackend === 'direct'
          ? 'a: auto-resume resubmits Slurm jobs; this target runs the trainer directly'
          : 'a: no target to launch on',
    run: (s) => {
      const now = s.confirm?.kind === 'launch' ? (s.confirm.autoResume ?? 0) : 0;
      const next = AUTO_RESUME_STEPS[(AUTO_RESUME_STEPS.indexOf(now) + 1) % AUTO_RESUME_STEPS.length];
      return same({ ...s, confirm: { kind: 'launch', autoResume: next } });
    },
  },
  {
    keys: ['p'],
    scopes: ['launch'],
    command: 'launch-preflight',
    description: 'run the pre-flight again',
    short: 'pre-flight again',
    disabledReason: (ctx) => (ctx.preflight === 'running' ? 'p: the pre-flight is running' : null),
    run: (s) => same(s, [act.runPreflight()]),
  },
  {
    keys: ['n', 'esc'],
    scopes: ['launch'],
    command: 'launch-cancel',
    description: 'cancel (so does any other key)',
    short: 'cancel',
    shown: true,
    run: (s) => same({ ...s, confirm: null }),
  },
  // The leftover dialog.
  {
    keys: ['y'],
    scopes: ['leftovers'],
    command: 'leftovers-stop',
    description: "stop the run's tagged leftover processes",
    short: 'stop them',
    disabledReason: (ctx) => (ctx.leftovers?.phase === 'found' && ctx.leftovers.tagged > 0 ? null : 'nothing to stop'),
    run: (s) => same(s, [act.stopLeftovers((s.confirm as { runId: string }).runId)]),
  },
  {
    keys: ['n'],
    scopes: ['leftovers'],
    command: 'leftovers-close',
    description: 'close (any key does, once the check is done)',
    short: 'close',
    run: (s) => same({ ...s, confirm: null }),
  },
  // While typing.
  {
    keys: ['enter'],
    scopes: ['input'],
    command: 'input-accept',
    description: 'accept the text',
    short: 'keep',
    run: (s) => (s.input ? acceptInput(s) : same(s)),
  },
  {
    keys: ['ctrl-c', 'ctrl-g'],
    scopes: ['input'],
    command: 'input-cancel',
    description: 'cancel the text (never quits)',
    short: 'cancel',
    run: (s) => (s.input ? cancelInput(s) : same(s)),
  },
  // A server's login prompt (a second factor, asked after `r`): the answer goes to the session.
  {
    keys: ['enter'],
    scopes: ['login'],
    command: 'login-answer',
    description: 'send the answer to the server (asked once per connection: nothing is retried)',
    short: 'send',
    shown: true,
    run: (s) => same({ ...s, loginText: '' }, [act.answerLogin(s.loginText)]),
  },
  {
    keys: ['esc', 'ctrl-c'],
    scopes: ['login'],
    command: 'login-cancel',
    description: 'do not answer: the target stays disconnected (r asks again)',
    short: 'cancel',
    shown: true,
    run: (s) => same({ ...s, loginText: '' }, [act.answerLogin(null)]),
  },
];

function acceptInput(s: UiState): Result {
  const t = s.input!;
  if (t.kind === 'search') return same({ ...s, input: null, logSearch: t.text, logScroll: 0 });
  if (t.kind === 'find') return same({ ...s, input: null });
  if (t.kind === 'edit') return same({ ...s, input: null }, [act.setValue(t.key, t.text), act.setDraft(null)]);
  return same({ ...s, input: null }, t.text.trim() ? [act.addOverride(t.text.trim())] : []);
}

function cancelInput(s: UiState): Result {
  const t = s.input!;
  if (t.kind === 'find') return same({ ...s, input: null, configCursor: t.from });
  if (t.kind === 'search') return same({ ...s, input: null, logSearch: t.prev, logScroll: 0 });
  return same({ ...s, input: null }, t.kind === 'edit' ? [act.setDraft(null)] : []);
}
