// The person's own terminal, through a real tmux inside `script`: the test reads the bytes that
// reach the OUTER terminal. `awrl-tui notify test` writes its desktop notification in tmux's
// passthrough with a BEL after it: with `allow-passthrough on` the unwrapped OSC 9 arrives; with it
// off tmux drops the sequence and only the BEL (tmux's own, which monitor-bell marks) comes out.
// Its json:// channel goes to a real receiver on 127.0.0.1. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../runs/cli-process.js';
import { startReceiver, type HttpReceiver } from '../harness/http-receiver.js';
import { waitFor } from '../harness/wait.js';

const BIN = join(ROOT, 'bin', 'awrl-tui.js');
const ESC = '\x1b';

describe('terminal notifications through tmux', { timeout: 60_000 }, () => {
  let rx: HttpReceiver;
  let dir: string;
  const kids: ChildProcess[] = [];
  const sockets: string[] = [];
  beforeAll(async () => {
    rx = await startReceiver();
    dir = mkdtempSync(join(tmpdir(), 'awrl-osc-'));
  });
  afterAll(async () => {
    for (const s of sockets) {
      try {
        execFileSync('tmux', ['-L', s, 'kill-server'], { stdio: 'ignore' });
      } catch {
        // already gone with its session
      }
    }
    for (const k of kids) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL');
    await rx.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `notify test` in a tmux pane inside `script`; resolves with what reached the outer terminal
   *  once `until` holds (the pane then waits on `read`, so nothing ends before the bytes are read). */
  async function outerBytes(passthrough: 'on' | 'off', until: (s: string) => boolean): Promise<string> {
    const socket = `awrl-osc-${process.pid}-${passthrough}`;
    sockets.push(socket);
    const conf = join(dir, `tmux-${passthrough}.conf`);
    writeFileSync(conf, `set -g allow-passthrough ${passthrough}\nset -g status off\n`);
    const pane = `${process.execPath} ${BIN} notify test --notify json://127.0.0.1:${rx.port}/osc-${passthrough}; read x`;
    const tmux = `tmux -L ${socket} -f ${conf} new-session -x 100 -y 20 '${pane}'`;
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
    for (const k of [
      'TMUX',
      'TMUX_PANE',
      'KITTY_WINDOW_ID',
      'VTE_VERSION',
      'LC_TERMINAL',
      'TERM_PROGRAM',
      'AWRL_NOTIFY',
    ])
      delete env[k];
    const child = spawn('script', ['-q', '-e', '-c', tmux, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    kids.push(child);
    let out = '';
    child.stdout!.setEncoding('latin1');
    child.stdout!.on('data', (c: string) => (out += c));
    await waitFor(() => until(out), {
      timeoutMs: 30_000,
      what: `the notification through tmux (passthrough ${passthrough})`,
    });
    execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' });
    return out;
  }

  it('allow-passthrough on: the unwrapped OSC 9 and a BEL reach the outer terminal; the channel got its test', async () => {
    const osc = `${ESC}]9;awrl test: test message: awrl-tui can reach you here`;
    const out = await outerBytes('on', (s) => s.includes(osc) && s.includes('ok       json://'));
    expect(out).toContain(osc);
    // tmux took the passthrough off: no DCS wrapper is left for the outer terminal to choke on.
    expect(out).not.toContain(`${ESC}Ptmux;`);
    expect(out.split(osc)[1]).toContain('\x07');
    expect(rx.received.some((r) => r.path === '/osc-on' && JSON.parse(r.body).awrl.event === 'test')).toBe(true);
  });

  it('allow-passthrough off: no OSC, only the BEL', async () => {
    // Without a notification (--no-terminal-notify) this setup writes no BEL at all: this one is ours.
    const out = await outerBytes('off', (s) => s.includes('ok       json://') && s.includes('\x07'));
    expect(out).not.toContain(`${ESC}]9;`);
    expect(out).not.toContain(`${ESC}Ptmux;`);
    expect(out).toContain('\x07');
  });
});
