// A real tmux server on a private socket for end-to-end tests of the cockpit: start a command in a
// detached session of a given size, read the screen, type keys, resize, and kill the server by its
// socket at the end (never the user's tmux).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { waitFor } from './wait.js';

const run = promisify(execFile);

export interface TmuxOptions {
  command: string;
  width?: number;
  height?: number;
  cwd?: string;
  env?: Record<string, string>;
}

export class TmuxSession {
  private constructor(
    readonly socket: string,
    readonly name: string,
  ) {}

  static async start(o: TmuxOptions): Promise<TmuxSession> {
    const socket = `awrl-test-${process.pid}-${randomBytes(4).toString('hex')}`;
    const s = new TmuxSession(socket, 'cockpit');
    const envArgs = Object.entries(o.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // -f /dev/null: no user config; the server's own defaults (256 colours via TERM=screen/tmux).
    // A clean terminal environment: the test runner's FORCE_COLOR=0 / CI must not leak into the
    // cockpit's colour detection (pass them in `env` to test them).
    const base = { ...process.env };
    for (const k of ['FORCE_COLOR', 'NO_COLOR', 'CI', 'TMUX', 'TMUX_PANE']) delete base[k];
    await run(
      'tmux',
      [
        '-L',
        socket,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        s.name,
        '-x',
        String(o.width ?? 120),
        '-y',
        String(o.height ?? 40),
        ...(o.cwd ? ['-c', o.cwd] : []),
        ...envArgs,
        o.command,
      ],
      { env: base },
    );
    // Keep the pane after the command exits so the test can see what it left on the terminal.
    await s.tmux('set-option', '-t', s.name, 'remain-on-exit', 'on');
    await s.tmux('set-option', '-s', 'escape-time', '10');
    return s;
  }

  async tmux(...args: string[]): Promise<string> {
    const r = await run('tmux', ['-L', this.socket, ...args]);
    return r.stdout;
  }

  /** The visible screen, one string per row (trailing spaces trimmed by tmux). */
  async capture(): Promise<string[]> {
    const out = await this.tmux('capture-pane', '-p', '-t', this.name);
    return out.replace(/\n$/, '').split('\n');
  }

  /** The screen with its SGR attributes (colours, bold, inverse) as escape sequences. */
  async captureEscaped(): Promise<string> {
    return this.tmux('capture-pane', '-p', '-e', '-t', this.name);
  }

  async screen(): Promise<string> {
    return (await this.capture()).join('\n');
  }

  /** Literal text (-l), so `q` or `?` are sent as characters. */
  async type(text: string): Promise<void> {
    await this.tmux('send-keys', '-t', this.name, '-l', text);
  }

  /** tmux key names: Enter, Tab, BSpace, Up, Down, C-c … */
  async keys(...names: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', this.name, ...names);
  }

  async resize(width: number, height: number): Promise<void> {
    await this.tmux('resize-window', '-t', this.name, '-x', String(width), '-y', String(height));
  }

  async display(format: string): Promise<string> {
    return (await this.tmux('display-message', '-p', '-t', this.name, format)).trim();
  }

  async size(): Promise<{ width: number; height: number }> {
    const [w, h] = (await this.display('#{pane_width} #{pane_height}')).split(' ').map(Number);
    return { width: w, height: h };
  }

  /** Wait until the screen satisfies `pred`; the timeout error shows the last screen. */
  async waitForScreen(pred: (screen: string) => boolean, what: string, timeoutMs = 15_000): Promise<string> {
    let last = '';
    try {
      return await waitFor(
        async () => {
          last = await this.screen();
          return pred(last) ? last : null;
        },
        { timeoutMs, intervalMs: 100, what },
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- last screen ---\n${last}`);
    }
  }

  async paneDead(): Promise<{ dead: boolean; status: number | null }> {
    const [dead, status] = (await this.display('#{pane_dead} #{pane_dead_status}')).split(' ');
    return { dead: dead === '1', status: status === '' || status === undefined ? null : Number(status) };
  }

  /** Kill this test's tmux server (and with it the command), by its private socket. */
  async kill(): Promise<void> {
    await run('tmux', ['-L', this.socket, 'kill-server']).catch(() => {});
  }
}
