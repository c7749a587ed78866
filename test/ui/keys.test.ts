import { describe, expect, it } from 'vitest';
import { BINDINGS, bindingFor, hintLine, keyLabel, keyName } from '../../src/ui/bindings.js';
import { act } from '../../src/ui/binding-keys.js';
import { StaticSession } from '../../src/session/static-session.js';
import type { TrajectoriesView } from '../../src/session/types.js';
import { stepViews, summaryOf } from '../../src/episodes/index.js';
import { initialTrajNav } from '../../src/ui/traj-nav.js';
import { lineText } from '../../src/ui/lines.js';
import { helpRows } from '../../src/ui/screens/help.js';
import { initialUiState, reduceKey, type KeyContext, type KeyInfo, type UiState } from '../../src/ui/ui-state.js';

const TRAJ_FILE = '/d/rollout/3/shop_ep0.json';
const TRAJ: TrajectoriesView = {
  runId: 'run-a',
  episodes: [
    summaryOf({ kind: 'train', version: 3, file: TRAJ_FILE, fileSize: 9 }, { task_id: 'shop', episode_idx: 0 }),
  ],
  sizes: new Map(),
  problem: null,
  stepsFile: TRAJ_FILE,
  steps: stepViews(TRAJ_FILE, { steps: [{}, {}, {}] }),
  stepsProblem: null,
  shots: new Map(),
};

const ctx: KeyContext = {
  runIds: ['run-a', 'run-b', 'run-c'],
  configRows: [
    { key: 'seed', leaf: true, value: '1', origin: 'file:12' },
    { key: 'cluster', leaf: false, value: '', origin: 'file:14' },
    { key: 'cluster.n_nodes', leaf: true, value: '8', origin: 'override 1' },
  ],
  launchInProgress: false,
  configHasErrors: false,
  page: 10,
};

function press(s: UiState, input: string, key: KeyInfo = {}, c: KeyContext = ctx) {
  return reduceKey(s, input, key, c);
}

function typeText(s: UiState, text: string) {
  let effects: ReturnType<typeof press>['effects'] = [];
  for (const ch of text) {
    const r = press(s, ch);
    s = r.state;
    effects = r.effects;
  }
  return { state: s, effects };
}

describe('screen switching', () => {
  it("1-7 and Tab/Shift-Tab; 7 lists the open run's dumps", () => {
    const s = initialUiState('runs');
    expect(press(s, '2').state.screen).toBe('dashboard');
    expect(press(s, '3').state.screen).toBe('config');
    expect(press(s, '4').state.screen).toBe('log');
    expect(press(s, '5').state.screen).toBe('eval');
    expect(press(press(s, '4').state, '1').state.screen).toBe('runs');
    expect(press(s, '', { tab: true }).state.screen).toBe('dashboard');
    expect(press(s, '6').state.screen).toBe('health');
    expect(press(s, '', { tab: true, shift: true }).state.screen).toBe('trajectories');
    expect(press(s, '7').effects).toEqual([act.listTrajectories()]);
  });
  it('? opens help and any key closes it without acting', () => {
    const h = press(initialUiState(), '?').state;
    expect(h.help).toBe(true);
    const r = press(h, 'q');
    expect(r.state.help).toBe(false);
    expect(r.effects).toEqual([]);
  });
});

describe('quit', () => {
  it('q quits at once when no launch is in progress', () => {
    expect(press(initialUiState(), 'q').effects).toEqual([{ kind: 'quit' }]);
  });
  it('q asks first while a launch is in progress; n keeps the cockpit, y quits', () => {
    const busy = { ...ctx, launchInProgress: true };
    const asked = press(initialUiState(), 'q', {}, busy);
    expect(asked.effects).toEqual([]);
    expect(asked.state.confirm).toEqual({ kind: 'quit' });
    expect(press(asked.state, 'n', {}, busy).effects).toEqual([]);
    expect(press(asked.state, 'y', {}, busy).effects).toEqual([{ kind: 'quit' }]);
  });
  it('nothing is bound to Ctrl-b, Ctrl-j/k or a lone Esc', () => {
    for (const screen of ['runs', 'dashboard', 'config', 'log'] as const) {
      const s = initialUiState(screen);
      for (const [input, key] of [
        ['b', { ctrl: true }],
        ['j', { ctrl: true }],
        ['k', { ctrl: true }],
        ['', { escape: true }],
      ] as [string, KeyInfo][]) {
        const r = press(s, input, key);
        expect(r.effects).toEqual([]);
        expect(r.state).toEqual(s);
      }
    }
  });
});

describe('runs screen', () => {
  it('arrows and j/k move within bounds; Enter opens the dashboard of the selected run', () => {
    let s = initialUiState('runs');
    s = press(s, 'j').state;
    s = press(s, '', { downArrow: true }).state;
    s = press(s, 'j').state;
    expect(s.runsCursor).toBe(2);
    s = press(s, 'k').state;
    const r = press(s, '', { return: true });
    expect(r.state.screen).toBe('dashboard');
    expect(r.effects).toEqual([act.selectRun('run-b')]);
  });
  it('s asks before stopping', () => {
    const asked = press(initialUiState('runs'), 's');
    expect(asked.effects).toEqual([]);
    expect(press(asked.state, 'y').effects).toEqual([act.stopRun('run-a')]);
  });
});

describe('dashboard', () => {
  it('z cycles zoom through every panel and back', () => {
    let s = initialUiState('dashboard');
    const seen: (string | null)[] = [];
    for (let i = 0; i < 7; i++) {
      s = press(s, 'z').state;
      seen.push(s.zoom);
    }
    expect(seen).toEqual(['reward', 'staleness', 'throughput', 'gpu', 'alerts', 'log', null]);
  });
  it('/ searches live; Enter keeps it; Ctrl-c cancels typing and never quits', () => {
    let s = press(initialUiState('dashboard'), '/').state;
    s = typeText(s, 'oom').state;
    expect(s.logSearch).toBe('oom');
    s = press(s, '', { backspace: true }).state;
    expect(s.logSearch).toBe('oo');
    const kept = press(s, '', { return: true }).state;
    expect(kept.input).toBeNull();
    expect(kept.logSearch).toBe('oo');
    const cancelled = press(press(kept, '/').state, 'c', { ctrl: true });
    expect(cancelled.effects).toEqual([]);
    expect(cancelled.state.input).toBeNull();
  });
  it('q typed inside a search is text, not quit', () => {
    const s = press(initialUiState('dashboard'), '/').state;
    const r = press(s, 'q');
    expect(r.effects).toEqual([]);
    expect(r.state.logSearch).toBe('q');
  });
});

describe('config screen', () => {
  it('Enter edits a leaf with a live draft; Enter commits; Ctrl-g cancels', () => {
    let s = initialUiState('config');
    const open = press(s, '', { return: true });
    expect(open.effects).toEqual([act.setDraft({ key: 'seed', text: '1' })]);
    s = press(open.state, '', { backspace: true }).state;
    const typed = typeText(s, '42');
    expect(typed.effects).toEqual([act.setDraft({ key: 'seed', text: '42' })]);
    const commit = press(typed.state, '', { return: true });
    expect(commit.effects).toEqual([act.setValue('seed', '42'), act.setDraft(null)]);
    const cancel = press(typed.state, 'g', { ctrl: true });
    expect(cancel.effects).toEqual([act.setDraft(null)]);
  });
  it('Enter on a section does nothing; x removes the override that sets the row', () => {
    const onSection = { ...initialUiState('config'), configCursor: 1 };
    expect(press(onSection, '', { return: true }).effects).toEqual([]);
    expect(press({ ...onSection, configCursor: 2 }, 'x').effects).toEqual([act.removeOverride(1)]);
    expect(press({ ...onSection, configCursor: 0 }, 'x').effects).toEqual([]);
  });
  it('G / End jump past the whole tree to the overrides list, so x can remove one that names no key', () => {
    const withOverrides: KeyContext = { ...ctx, overrides: ['nosuch=1', 'seed=[1'] };
    const atTop = { ...initialUiState('config'), configCursor: 0 };
    const end = press(atTop, 'G', {}, withOverrides).state;
    expect(end.configCursor).toBe(ctx.configRows.length);
    expect(press(atTop, '', { end: true }, withOverrides).state.configCursor).toBe(ctx.configRows.length);
    expect(press(end, 'x', {}, withOverrides).effects).toEqual([act.removeOverride(1)]);
    // With no override, the last key.
    expect(press(atTop, 'G').state.configCursor).toBe(ctx.configRows.length - 1);
  });
  it('x on the last override of the list leaves the cursor on a row that is still there', () => {
    const two: KeyContext = { ...ctx, overrides: ['nosuch=1', 'seed=[1'] };
    const onLast = { ...initialUiState('config'), configCursor: ctx.configRows.length + 1 };
    const r = press(onLast, 'x', {}, two);
    expect(r.effects).toEqual([act.removeOverride(2)]);
    const one: KeyContext = { ...ctx, overrides: ['nosuch=1'] };
    expect(press(r.state, 'x', {}, one).effects).toEqual([act.removeOverride(1)]);
  });
  it('+ types an override and adds it', () => {
    const s = press(initialUiState('config'), '+').state;
    const r = press(typeText(s, '++seed=3').state, '', { return: true });
    expect(r.effects).toEqual([act.addOverride('++seed=3')]);
  });
  it('L asks with the argv and runs the pre-flight; y launches only after a clean one; with errors y only closes', () => {
    const asked = press(initialUiState('config'), 'L');
    expect(asked.state.confirm).toEqual({ kind: 'launch' });
    expect(asked.effects).toEqual([act.runPreflight()]);
    expect(press(asked.state, 'y', {}, { ...ctx, preflight: 'ok' }).effects).toEqual([act.launch(undefined)]);
    // While the pre-flight runs, y waits (the confirmation stays open).
    const waiting = press(asked.state, 'y', {}, { ...ctx, preflight: 'running' });
    expect(waiting.effects).toEqual([]);
    expect(waiting.state.confirm).toEqual({ kind: 'launch' });
    expect(press(asked.state, 'y', {}, { ...ctx, configHasErrors: true }).effects).toEqual([]);
    expect(press(initialUiState('config'), 'L', {}, { ...ctx, configHasErrors: true }).effects).toEqual([]);
  });
  it('a blocking pre-flight: y does nothing, S launches with the skip recorded, p runs it again, n cancels', () => {
    const asked = press(initialUiState('config'), 'L').state;
    const blocked = { ...ctx, preflight: 'blocked' as const };
    const y = press(asked, 'y', {}, blocked);
    expect(y.effects).toEqual([]);
    expect(y.state.confirm).toEqual({ kind: 'launch' });
    const skip = press(asked, 'S', {}, blocked);
    expect(skip.effects).toEqual([act.launch({ skipPreflight: true })]);
    expect(skip.state.confirm).toBeNull();
    expect(press(asked, 'S', {}, { ...ctx, preflight: 'ok' }).effects).toEqual([]);
    // S before the pre-flight has answered neither launches nor closes.
    const early = press(asked, 'S', {}, { ...ctx, preflight: 'running' });
    expect(early.effects).toEqual([]);
    expect(early.state.confirm).toEqual({ kind: 'launch' });
    expect(press(asked, 'p', {}, blocked).effects).toEqual([act.runPreflight()]);
    expect(press(asked, 'n', {}, blocked).state.confirm).toBeNull();
  });
  it('p on the Config screen runs the pre-flight on demand', () => {
    expect(press(initialUiState('config'), 'p').effects).toEqual([act.runPreflight()]);
    expect(press(initialUiState('config'), 'p', {}, { ...ctx, preflight: 'running' }).effects).toEqual([]);
  });
});

describe('leftovers after a run ended', () => {
  const ended = { ...ctx, selectedRun: { id: 'r1', ended: true } };
  it('o checks only when the run has ended', () => {
    expect(
      press(initialUiState('dashboard'), 'o', {}, { ...ctx, selectedRun: { id: 'r1', ended: false } }).effects,
    ).toEqual([]);
    const r = press(initialUiState('dashboard'), 'o', {}, ended);
    expect(r.effects).toEqual([act.checkLeftovers('r1')]);
    expect(r.state.confirm).toEqual({ kind: 'leftovers', runId: 'r1' });
  });
  it('y stops only when tagged processes were found; otherwise any key closes', () => {
    const open = press(initialUiState('dashboard'), 'o', {}, ended).state;
    expect(press(open, 'y', {}, { ...ended, leftovers: { phase: 'found', tagged: 1 } }).effects).toEqual([
      act.stopLeftovers('r1'),
    ]);
    const none = press(open, 'y', {}, { ...ended, leftovers: { phase: 'found', tagged: 0 } });
    expect(none.effects).toEqual([]);
    expect(none.state.confirm).toBeNull();
    expect(
      press(open, 'y', {}, { ...ended, leftovers: { phase: 'checking', tagged: 0 } }).state.confirm,
    ).not.toBeNull();
  });
});

describe('log pane view and the Runs screen leftover check', () => {
  it('L switches the pane between trainer lines and events only when the run has trainer lines; a filters the view shown', () => {
    const withLines = { ...ctx, trainerLines: true };
    for (const screen of ['dashboard', 'log'] as const) {
      const s = { ...initialUiState(screen), logScroll: 5 };
      expect(s.logView).toBe('trainer');
      const toggled = press(s, 'L', {}, withLines).state;
      expect(toggled.logView).toBe('events');
      expect(toggled.logScroll).toBe(0);
      expect(press(toggled, 'L', {}, withLines).state.logView).toBe('trainer');
      // Without them L does nothing and says why (until the next key).
      expect(press(s, 'L').state).toEqual({ ...s, keyHint: expect.stringMatching(/only the event view/) });
      expect(press(press(s, 'L').state, 'z').state.keyHint).toBeNull();
      const a = press(s, 'a', {}, withLines).state;
      expect([a.trainerProblemsOnly, a.logAll]).toEqual([true, false]);
      const b = press(toggled, 'a', {}, withLines).state;
      expect([b.trainerProblemsOnly, b.logAll]).toEqual([false, true]);
      // Without trainer lines the event view is what is shown: a filters it.
      const c = press(s, 'a').state;
      expect([c.trainerProblemsOnly, c.logAll]).toEqual([false, true]);
    }
  });
  it('o on the Runs screen checks the run under the cursor for leftovers only when it has ended', () => {
    const c = { ...ctx, endedRuns: new Set(['run-b']) };
    expect(press(initialUiState('runs'), 'o', {}, c).effects).toEqual([]);
    const r = press({ ...initialUiState('runs'), runsCursor: 1 }, 'o', {}, c);
    expect(r.effects).toEqual([act.checkLeftovers('run-b')]);
    expect(r.state.confirm).toEqual({ kind: 'leftovers', runId: 'run-b' });
    expect(press(r.state, 'y', {}, { ...c, leftovers: { phase: 'found', tagged: 2 } }).effects).toEqual([
      act.stopLeftovers('run-b'),
    ]);
  });
});

describe('the binding table', () => {
  const all = helpRows(200).map(lineText).join('\n');
  it('the help overlay lists every binding, its keys and its whole description', () => {
    for (const b of BINDINGS) {
      if (b.scopes.includes('help')) continue;
      expect(all).toContain(keyLabel(b));
      expect(all.replace(/\s+/g, ' ')).toContain(b.description);
    }
  });
  it('in the help overlay a key label never runs into its description (a gap at 80 and 200 columns)', () => {
    for (const width of [80, 200]) {
      const text = helpRows(width).map(lineText).join('\n');
      for (const b of BINDINGS) {
        if (b.scopes.includes('help')) continue;
        const first = b.description.split(' ')[0];
        expect(text).toMatch(new RegExp(`${keyLabel(b).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +${first}`));
      }
    }
  });
  it('each screen binding is reached by its keys (no global binding or another one shadows it)', () => {
    const open: KeyContext = {
      ...ctx,
      configRows: [...ctx.configRows, { key: 'seed2', leaf: true, value: '2', origin: 'file:15' }],
      trainerLines: true,
      selectedRun: { id: 'run-a', ended: true },
      endedRuns: new Set(['run-a', 'run-b']),
      helpScrollMax: 5,
      historyScrollMax: 5,
      historyStep: 12,
      runSteps: 20,
      argvScrollMax: 5,
      preflight: 'ok',
      launchBackend: 'slurm', // auto-resume (a) acts for a Slurm target only
    };
    const states: Record<string, UiState> = {
      runs: { ...initialUiState('runs'), runsCursor: 1 },
      dashboard: { ...initialUiState('dashboard'), logScroll: 3 },
      log: { ...initialUiState('log'), logScroll: 3 },
      config: { ...initialUiState('config'), configCursor: 2 },
      help: { ...initialUiState('runs'), help: true, helpScroll: 2 },
      history: { ...initialUiState('dashboard'), history: true, historyScroll: 2 },
      launch: { ...initialUiState('config'), confirm: { kind: 'launch' }, argvScroll: 2 },
      leftovers: { ...initialUiState('dashboard'), confirm: { kind: 'leftovers', runId: 'run-a' } },
      input: { ...initialUiState('dashboard'), input: { kind: 'search', text: 'x', prev: '' } },
      login: { ...initialUiState('runs'), loginText: '12' },
      global: initialUiState('log'), // '1' from here; the other keys from Runs
      trajectories: { ...initialUiState('trajectories'), traj: { ...initialTrajNav(), level: 'steps', step: 1 } },
    };
    const infoOf = (name: string): [string, KeyInfo] => {
      const named: Record<string, KeyInfo> = {
        up: { upArrow: true },
        down: { downArrow: true },
        pgup: { pageUp: true },
        pgdn: { pageDown: true },
        enter: { return: true },
        esc: { escape: true },
        tab: { tab: true },
        'shift-tab': { tab: true, shift: true },
        end: { end: true },
        delete: { delete: true },
        left: { leftArrow: true },
        right: { rightArrow: true },
        backspace: { backspace: true },
      };
      if (named[name]) return ['', named[name]];
      if (name.startsWith('ctrl-')) return [name.slice(5), { ctrl: true }];
      return [name, {}];
    };
    const unreached: string[] = [];
    for (const b of BINDINGS) {
      for (const scope of b.scopes) {
        for (const k of b.keys) {
          const [input, key] = infoOf(k);
          expect(keyName(input, key)).toBe(k);
          const c =
            scope === 'leftovers'
              ? { ...open, leftovers: { phase: 'found' as const, tagged: 1 } }
              : scope === 'login'
                ? { ...open, loginPrompt: true }
                : scope === 'trajectories'
                  ? { ...open, trajectories: TRAJ }
                  : b.command === 'launch-anyway'
                    ? { ...open, preflight: 'blocked' as const }
                    : open;
          const from = scope === 'global' && k !== '1' ? initialUiState('runs') : states[scope];
          const r = press(from, input, key, c);
          const acted =
            r.effects.length > 0 || (r.state.keyHint === null && JSON.stringify(r.state) !== JSON.stringify(from));
          if (!acted) unreached.push(`${scope} ${k} (${b.command})`);
        }
      }
    }
    expect(unreached).toEqual([]);
  });
  it('a disabled key says why on the status line and does nothing else', () => {
    const running: KeyContext = { ...ctx, selectedRun: { id: 'run-a', ended: false } };
    const r = press(initialUiState('dashboard'), 'o', {}, running);
    expect(r.effects).toEqual([]);
    expect(r.state.keyHint).toBe('o: run run-a is still running; leftover processes are checked once it has ended');
    expect(bindingFor('dashboard', 'o')?.disabledReason?.(running, r.state)).toBe(r.state.keyHint);
  });
  it('hints name only keys of the table, as many as fit whole', () => {
    expect(hintLine('runs', 200)).toBe('Enter open · n new launch · s stop · o leftovers · r refresh');
    expect(hintLine('runs', 30)).toBe('Enter open · n new launch');
    expect(hintLine('config', 200)).toBe('Enter edit · + add · x remove · p pre-flight · L launch');
  });
});

describe('config find', () => {
  it('/ jumps to the first key containing the text as you type; Ctrl-c goes back', () => {
    let s = { ...initialUiState('config'), configCursor: 0 };
    s = press(s, '/').state;
    s = typeText(s, 'n_no').state;
    expect(s.configCursor).toBe(2);
    expect(press(s, '', { return: true }).state.configCursor).toBe(2);
    expect(press(s, 'c', { ctrl: true }).state.configCursor).toBe(0);
  });
});

describe('effects are session actions', () => {
  it('an effect is an action of SessionActions by name, with its arguments: the session has each one', () => {
    expect(act.stopRun('r1')).toEqual({ kind: 'stopRun', args: ['r1'] });
    expect(act.launch({ skipPreflight: true })).toEqual({ kind: 'launch', args: [{ skipPreflight: true }] });
    const actions = new StaticSession().actions as unknown as Record<string, unknown>;
    for (const e of [
      act.selectRun('a'),
      act.refreshRuns(),
      act.setDraft(null),
      act.runPreflight(),
      act.stopLeftovers('a'),
    ])
      expect(typeof actions[e.kind], e.kind).toBe('function');
  });
});
