// The order a login is tried in, like OpenSSH: the agent, the identity files, then keyboard-
// interactive: on clusters that ask for a second factor after the key (a one-time code, a push),
// the server's prompts go to where a person is (OpenTransportOptions.answerLogin), on the first
// connection only. A reconnect that meets the prompt again, or a command with no one to answer,
// fails at once with `login-needs-person`: never a silent retry that could lock the account. Only
// the person asks again (SshTransport.loginAgain, the cockpit's `r`): one attempt, its prompts to them.
import { ConnectFailure, type ConnectFacts } from './connect-failure.js';
import type { AnswerLogin, LoginQuestion } from './options.js';

type Prompts = { prompt: string; echo?: boolean }[];
type Finish = (answers: string[]) => void;
/** ssh2's authHandler in its function form: the next method to try, or false when none is left. */
export type AuthHandler = (left: string[] | null, partial: boolean | null) => object | false;

export interface KeyboardLoginOptions {
  /** The ssh host as written, and the login user. */
  target: string;
  user: string;
  /** Absent: no one can answer here (headless without a terminal). */
  answer?: AnswerLogin;
  /** This attempt reconnects a transport that was connected: a person is not asked again. */
  reconnect: boolean;
  facts: ConnectFacts;
  /** Ends the attempt with this failure (and the connection with it). */
  fail: (err: ConnectFailure) => void;
}

const WAY_OUT =
  "or log in once through OpenSSH's ControlMaster (ControlMaster auto, ControlPath and ControlPersist for " +
  'this host in ~/.ssh/config, then ssh HOST true): awrl-tui then rides that connection and asks nothing';

/** Why a login that needs a person failed, with the server's prompt (null: not shown to us, as
 *  OpenSSH in batch mode does not) and the way out. Starts "connection needs you to log in again"
 *  for a reconnect. */
export function needsPersonMessage(target: string, prompt: string | null, reconnect: boolean): string {
  const what = `${target} asks for a second login step (keyboard-interactive${prompt ? `: "${prompt}"` : ''})`;
  const way = WAY_OUT.replace('HOST', target);
  return reconnect
    ? `connection needs you to log in again: ${what}, which is answered once per connection and not retried; ` +
        `connect again where you can type it, ${way}`
    : `${what} and no one can answer it here (no terminal): run the command in a terminal to type it, ${way}`;
}

/** One attempt's keyboard-interactive login: what the server asked, and whether it was answered. */
export class KeyboardLogin {
  /** The server's prompts of the last round, as it worded them (null: it asked nothing). */
  asked: string | null = null;
  answered = false;

  constructor(private readonly o: KeyboardLoginOptions) {}

  /** The method for ssh2's list. */
  method(): object {
    return { type: 'keyboard-interactive', username: this.o.user, prompt: this.round };
  }

  private readonly round = (name: string, instructions: string, _lang: string, prompts: Prompts, finish: Finish) => {
    const question: LoginQuestion = {
      target: this.o.target,
      name: name ?? '',
      instructions: instructions ?? '',
      prompts: prompts.map((p) => ({ prompt: p.prompt, echo: p.echo === true })),
    };
    this.asked = promptWords(question);
    const answer = this.o.answer;
    if (this.o.reconnect || !answer) return this.o.fail(this.needsPerson());
    answer(question).then(
      (answers) => {
        if (answers === null) return this.o.fail(this.declined());
        this.answered = true;
        finish(question.prompts.map((_, i) => answers[i] ?? ''));
      },
      (err: Error) => this.o.fail(this.declined(err.message)),
    );
  };

  private facts(): ConnectFacts {
    return { ...this.o.facts, loginPrompt: this.asked ?? undefined };
  }

  /** No one can answer: said with the server's prompt and the way out. */
  needsPerson(): ConnectFailure {
    return new ConnectFailure(
      'login-needs-person',
      needsPersonMessage(this.o.target, this.asked, this.o.reconnect),
      this.facts(),
    );
  }

  private declined(why?: string): ConnectFailure {
    const how = why ? `could not be asked (${why})` : 'was not answered';
    return new ConnectFailure(
      'auth-failed',
      `login to ${this.o.target} abandoned: its keyboard-interactive prompt "${this.asked}" ${how}`,
      this.facts(),
    );
  }

  /** The server refused after its prompts were answered (a wrong or expired code). */
  refused(): ConnectFailure {
    return new ConnectFailure(
      'auth-failed',
      `${this.o.target} refused the answer to its keyboard-interactive prompt "${this.asked}" ` +
        '(a wrong or expired code?); connect again to type a new one',
      this.facts(),
    );
  }
}

/** The words of a round, for messages: its prompts, else its title. */
function promptWords(q: LoginQuestion): string {
  const words = q.prompts.map((p) => p.prompt.trim()).filter(Boolean);
  return (words.length ? words.join(' / ') : q.name.trim() || q.instructions.trim()) || '(no prompt text)';
}

/**
 * ssh2's authHandler over `methods` then keyboard-interactive: a method the server no longer
 * accepts (after a partial success: the key was taken, a second factor is wanted) is skipped.
 */
export function loginHandler(methods: object[], keyboard: KeyboardLogin): AuthHandler {
  const list = [...methods, keyboard.method()];
  let next = 0;
  return (left) => {
    while (next < list.length) {
      const m = list[next++] as { type: string };
      const wire = m.type === 'agent' ? 'publickey' : m.type;
      if (!left || left.includes(wire)) return m;
    }
    return false;
  };
}
