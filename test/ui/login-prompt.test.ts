// A server's login prompt inside the cockpit (a second factor asked again after `r`): the keys the
// dialog takes (every key, a `q` typed is part of the answer), what it draws (nothing of a no-echo
// answer), and the session part that turns the transport's question into state and back.
import { describe, expect, it } from 'vitest';
import { frame } from '../../src/ui/cockpit.js';
import { lineText } from '../../src/ui/lines.js';
import { initialUiState, reduceKey, type KeyContext, type KeyInfo, type UiState } from '../../src/ui/ui-state.js';
import { emptyState } from '../../src/session/static-session.js';
import { LoginPrompts } from '../../src/session/login-prompt.js';
import type { LoginPromptView } from '../../src/session/types.js';
import type { AnswerLogin, LoginQuestion } from '../../src/remote/options.js';
import type { Transport } from '../../src/remote/transport.js';
import { LocalTransport } from '../../src/remote/local.js';
import { ConnectFailure } from '../../src/remote/connect-failure.js';
import { RetryTransport } from '../../src/session/retry-transport.js';
import { connectProblem } from '../../src/session/connect-advice.js';

const ctx: KeyContext = {
  runIds: ['run-a'],
  configRows: [],
  launchInProgress: false,
  configHasErrors: false,
  page: 10,
  loginPrompt: true,
};

function keys(s: UiState, presses: [string, KeyInfo?][]) {
  const effects = [];
  for (const [input, key] of presses) {
    const r = reduceKey(s, input, key ?? {}, ctx);
    s = r.state;
    effects.push(...r.effects);
  }
  return { state: s, effects };
}

const prompt: LoginPromptView = {
  target: 'twofa',
  host: 'login1',
  instructions: '',
  prompt: 'One-time password (OATH) for `me`: ',
  echo: false,
};

describe('the login prompt dialog', () => {
  it('takes every key as text; Backspace erases; Enter sends the answer once', () => {
    const r = keys(initialUiState('runs'), [
      ['1'],
      ['q'],
      ['9'],
      ['', { backspace: true }],
      ['r'],
      ['', { return: true }],
    ]);
    expect(r.effects).toEqual([{ kind: 'answerLogin', args: ['1qr'] }]);
    expect(r.state.loginText).toBe('');
    expect(r.state.screen).toBe('runs');
  });

  it('Esc and Ctrl-c decline (the target stays disconnected), never quit', () => {
    for (const key of [{ escape: true }, { ctrl: true }]) {
      const r = keys({ ...initialUiState('runs'), loginText: '12' }, [[key.ctrl ? 'c' : '', key]]);
      expect(r.effects).toEqual([{ kind: 'answerLogin', args: [null] }]);
      expect(r.state.loginText).toBe('');
    }
  });

  it('draws the server prompt over the screen; a no-echo answer is never drawn, an echoed one is', () => {
    const draw = (p: LoginPromptView) =>
      frame(
        { ...initialUiState('runs'), loginText: '424242' },
        { ...emptyState(), loginPrompt: p },
        { columns: 100, rows: 24 },
        0,
        {
          colors: false,
        },
      )
        .map(lineText)
        .join('\n');
    const hidden = draw(prompt);
    expect(hidden).toContain('Log in to twofa');
    expect(hidden).toContain('One-time password (OATH)');
    expect(hidden).toContain('(what you type is not shown)');
    expect(hidden).toMatch(/Enter send · Esc cancel/);
    expect(hidden).not.toContain('424242');
    expect(draw({ ...prompt, prompt: 'Username: ', echo: true })).toContain('Username: 424242');
  });
});

describe('LoginPrompts (session)', () => {
  const question = (target: string, n: number): LoginQuestion => ({
    target,
    name: '',
    instructions: 'Second factor',
    prompts: Array.from({ length: n }, (_, i) => ({ prompt: `P${i + 1}: `, echo: i > 0 })),
  });

  it('shows one prompt at a time, a round and then the next target, and gives the answers back', async () => {
    const shown: (LoginPromptView | undefined)[] = [];
    const p = new LoginPrompts((v) => shown.push(v));
    const a = p.answerer('a')(question('host-a', 2));
    const b = p.answerer('b')(question('host-b', 1));
    await Promise.resolve();
    await Promise.resolve();
    expect(shown.at(-1)).toMatchObject({ target: 'a', host: 'host-a', prompt: 'P1: ', echo: false });
    p.answer('one');
    expect(shown.at(-1)).toMatchObject({ target: 'a', prompt: 'P2: ', echo: true });
    p.answer('two');
    expect(await a).toEqual(['one', 'two']);
    await new Promise((r) => setImmediate(r));
    expect(shown.at(-1)).toMatchObject({ target: 'b', prompt: 'P1: ', instructions: 'Second factor' });
    p.answer(null);
    expect(await b).toBeNull();
    expect(shown.at(-1)).toBeUndefined();
  });

  it('a question waiting when the cockpit closes is declined', async () => {
    const p = new LoginPrompts(() => undefined);
    const a = p.answerer('a')(question('host-a', 1));
    await new Promise((r) => setImmediate(r));
    p.close();
    expect(await a).toBeNull();
  });
});

describe('RetryTransport: a target not connected for want of a second factor', () => {
  it('loginAgain opens once with the answerer; declined or refused, it stays failed; the inner needsLogin shows through', async () => {
    const answers: (string[] | null)[] = [];
    let opens = 0;
    const inner = new LocalTransport({ followPollMs: 50 }) as LocalTransport & { needsLogin?: boolean };
    const open = async (answer?: AnswerLogin): Promise<Transport> => {
      opens++;
      const a = answer ? await answer(question) : null;
      answers.push(a);
      if (a === null) throw new ConnectFailure('login-needs-person', 'needs a person', { loginPrompt: 'Code:' });
      return inner;
    };
    const question: LoginQuestion = {
      target: 'h',
      name: '',
      instructions: '',
      prompts: [{ prompt: 'Code:', echo: false }],
    };
    const first = connectProblem('twofa', new ConnectFailure('login-needs-person', 'needs a person', {}));
    const t = new RetryTransport('h', 'twofa', first, open);
    expect(t.needsLogin).toBe(true);
    await t.loginAgain(async () => null);
    expect(opens).toBe(1);
    expect(t.state.state).toBe('failed');
    expect(t.needsLogin).toBe(true);
    await t.loginAgain(async () => ['123456']);
    expect(opens).toBe(2);
    expect(answers).toEqual([null, ['123456']]);
    expect(t.state.state).toBe('ready');
    expect(t.needsLogin).toBe(false);
    inner.needsLogin = true;
    expect(t.needsLogin).toBe(true);
    await t.close();
  });
});
