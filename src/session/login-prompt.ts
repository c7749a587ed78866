// The server's keyboard-interactive questions asked inside the cockpit: `r` on a target whose
// connection ended at a second factor connects once more (Transport.loginAgain), and each question
// of that attempt becomes session state (`loginPrompt`), one prompt at a time, answered by the
// `answerLogin` action. One question at a time, whatever number of targets ask; nothing is asked
// again by itself: a declined or wrong answer leaves the target disconnected, saying why.
import type { AnswerLogin, LoginQuestion } from '../remote/options.js';
import type { LoginPromptView } from './types.js';

interface Asking {
  target: string;
  q: LoginQuestion;
  answers: string[];
  resolve: (answers: string[] | null) => void;
}

export class LoginPrompts {
  private asking: Asking | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  /** `shown` is told the prompt to show (undefined: none). */
  constructor(private readonly shown: (view: LoginPromptView | undefined) => void) {}

  /** An AnswerLogin for `target`'s attempt: its questions wait for the ones asked before. */
  answerer(target: string): AnswerLogin {
    return (q) => {
      const asked = this.queue.then(
        () => new Promise<string[] | null>((resolve) => this.ask({ target, q, answers: [], resolve })),
      );
      this.queue = asked.catch(() => undefined);
      return asked;
    };
  }

  private ask(a: Asking): void {
    // A round without prompts (instructions only) needs no typing.
    if (a.q.prompts.length === 0) return a.resolve([]);
    this.asking = a;
    this.show();
  }

  private show(): void {
    const a = this.asking;
    if (!a) return this.shown(undefined);
    const p = a.q.prompts[a.answers.length];
    const instructions = [a.q.name, a.q.instructions]
      .map((t) => t.trim())
      .filter(Boolean)
      .join(' ');
    this.shown({ target: a.target, host: a.q.target, instructions, prompt: p.prompt, echo: p.echo });
  }

  /** The person's answer to the prompt shown, or null: declined (the whole round is). */
  answer(text: string | null): void {
    const a = this.asking;
    if (!a) return;
    if (text !== null) a.answers.push(text);
    if (text !== null && a.answers.length < a.q.prompts.length) return this.show();
    this.asking = null;
    this.shown(undefined);
    a.resolve(text === null ? null : a.answers);
  }

  /** The cockpit closes: a question waiting is declined. */
  close(): void {
    this.answer(null);
  }
}
