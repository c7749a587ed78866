// A server's keyboard-interactive questions answered at a terminal: for the headless commands, and
// for the cockpit before it takes the screen. The prompt goes to stderr, the answer comes from
// stdin; a prompt the server marks no-echo (a code, a password) is read in raw mode and nothing of
// it is shown. One question at a time, whatever number of targets connect at once.
import { createInterface } from 'node:readline/promises';
import type { AnswerLogin, LoginQuestion } from './options.js';

interface TerminalIo {
  input: NodeJS.ReadStream;
  output: NodeJS.WritableStream;
}

let queue: Promise<unknown> = Promise.resolve();

/** Answers at this terminal, or undefined when stdin is not one (no one could answer). */
export function terminalAnswerLogin(
  io: TerminalIo = { input: process.stdin, output: process.stderr },
): AnswerLogin | undefined {
  if (!io.input.isTTY) return undefined;
  return (q) => {
    const asked = queue.then(() => askAll(q, io));
    queue = asked.catch(() => undefined);
    return asked;
  };
}

async function askAll(q: LoginQuestion, io: TerminalIo): Promise<string[] | null> {
  const head = [q.name, q.instructions].map((t) => t.trim()).filter(Boolean);
  io.output.write(
    `${q.target} asks for a login step (keyboard-interactive)${head.length ? `: ${head.join('\n')}` : ''}\n`,
  );
  const answers: string[] = [];
  for (const p of q.prompts) {
    const a = p.echo ? await askEchoed(p.prompt, io) : await askHidden(p.prompt, io);
    if (a === null) return null;
    answers.push(a);
  }
  return answers;
}

async function askEchoed(prompt: string, io: TerminalIo): Promise<string | null> {
  const rl = createInterface({ input: io.input, output: io.output, terminal: true });
  const closed = new Promise<null>((r) => rl.once('SIGINT', () => r(null)));
  try {
    return await Promise.race([rl.question(prompt), closed]);
  } finally {
    rl.close();
  }
}

/** Raw mode: no echo; Enter ends, Backspace erases, Ctrl-C or Ctrl-D on an empty line declines. */
function askHidden(prompt: string, io: TerminalIo): Promise<string | null> {
  const { input, output } = io;
  output.write(prompt);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve) => {
    let typed = '';
    const done = (answer: string | null): void => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write('\n');
      resolve(answer);
    };
    const onData = (chunk: Buffer): void => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(typed);
        if (ch === '\u0003' || (ch === '\u0004' && typed === '')) return done(null);
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}
