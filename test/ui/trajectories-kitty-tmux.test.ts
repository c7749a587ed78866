// The cockpit's kitty images inside tmux, for real: tmux (allow-passthrough on) runs in `script`, a
// pseudo-terminal standing for the user's kitty, and the cockpit (Ink, its painter) runs in the pane on
// the Trajectories screen. Opening a step sends the image through tmux's passthrough to the outer
// terminal, unwrapped and once; the pane holds the U+10EEEE placeholder cells as text; leaving the
// step view deletes the image. Needs dist/ built.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../runs/cli-process.js';
import { killTree } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';

const run = promisify(execFile);
// kitty's terminfo says it has 24-bit colour; xterm-256color's does not, and tmux would turn the
// image id in the placeholders' foreground into the nearest of 256 colours: said here as for kitty.
const RGB = "set -as terminal-features ',xterm-256color:RGB'\n";
const dist = (p: string) => JSON.stringify(join(ROOT, 'dist', p));
/** U+10EEEE as the outer terminal's bytes are read here (latin1). */
const PLACEHOLDER_BYTES = Buffer.from('\u{10EEEE}').toString('latin1');
const count = (s: string, sub: string) => s.split(sub).length - 1;

describe("the cockpit's kitty images through tmux", { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-traj-kitty-'));
  const socket = `awrl-traj-kitty-${process.pid}`;
  let scriptPid: number | undefined;
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, ...args]);
  const pane = async () => (await tmux('capture-pane', '-p')).stdout;
  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    if (scriptPid) await killTree(scriptPid);
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends the image once to the outer terminal and leaves placeholder cells in the pane', async () => {
    writeFileSync(
      join(dir, 'cockpit.mjs'),
      `import { runCockpit, StaticSession } from ${dist('ui/index.js')};
import { stepViews, summaryOf } from ${dist('episodes/index.js')};
import { encodePng } from ${dist('images/png.js')};
import { blank } from ${dist('images/raster.js')};
const file = '/d/rollout/3/shop_ep0.json';
const shot = '/d/rollout/3/shop_ep0_step_000.png';
const steps = stepViews(file, { steps: [{ step_idx: 0, observation: { image_path: shot } }] });
const episode = summaryOf({ kind: 'train', version: 3, file, fileSize: 100 }, { task_id: 'shop', episode_idx: 0, reward: 1, n_steps: 1 });
const shots = new Map([[shot, { ok: true, bytes: encodePng(blank(64, 40, [30, 120, 200])) }]]);
const trajectories = { runId: 'r', episodes: [episode], sizes: new Map(), problem: null, stepsFile: file, steps, stepsProblem: null, shots };
const session = new StaticSession({ selectedRunId: 'r', trajectories });
await runCockpit({ session, initialScreen: 'trajectories', images: { mode: 'kitty', tmux: !!process.env.TMUX } });
`,
    );
    writeFileSync(join(dir, 'tmux.conf'), `set -g allow-passthrough on\nset -g status off\n${RGB}`);
    const typescript = join(dir, 'outer.bin');
    const inner = `FORCE_COLOR=3 node ${join(dir, 'cockpit.mjs')}; sleep 600`;
    const cmd = `tmux -L ${socket} -f ${join(dir, 'tmux.conf')} new-session -x 100 -y 40 '${inner}'`;
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color', COLORTERM: 'truecolor' };
    delete env.TMUX;
    delete env.NO_COLOR;
    // stdin a pipe kept open: script ends its session when its input ends.
    const child = spawn('script', ['-q', '-f', '-c', cmd, typescript], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    scriptPid = child.pid;
    const outer = () => readFileSync(typescript, 'latin1');
    await waitFor(async () => ((await pane().catch(() => '')).includes('version 3') ? true : null), {
      timeoutMs: 20_000,
      what: 'the Trajectories screen listing version 3',
    });
    // version → its groups → the episode's steps → the step.
    for (const want of ['shop', 'step 0', 'step 0 of 1']) {
      await tmux('send-keys', 'Enter');
      await waitFor(async () => ((await pane()).includes(want) ? true : null), { timeoutMs: 10_000, what: want });
    }
    const sent = await waitFor(() => (outer().includes('\x1b_Ga=T') ? outer() : null), {
      timeoutMs: 10_000,
      what: 'the outer terminal to receive the image',
    });
    // Unwrapped: the outer terminal gets kitty's own APC, not tmux's DCS envelope.
    const m = /\x1b_Ga=T,q=2,f=100,U=1,i=(\d+),c=(\d+),r=(\d+),m=0;/.exec(sent);
    const [id, c, r] = [Number(m?.[1]), Number(m?.[2]), Number(m?.[3])];
    expect(id).toBeGreaterThan(0);
    // 64×40 pixels in the rows left under the step's text: two pixels a row, as wide as they fit.
    expect(c).toBe(Math.floor((64 * 2 * r) / 40));
    expect(sent).not.toContain('\x1bPtmux;');
    const cells = await waitFor(
      async () => {
        const rows = (await pane()).split('\n').filter((l) => l.includes('\u{10EEEE}'));
        return rows.length === r ? rows : null;
      },
      { timeoutMs: 10_000, what: 'the placeholder cells in the pane' },
    );
    for (const row of cells) expect(count(row, '\u{10EEEE}')).toBe(c);
    // The outer terminal gets the cells with the id as their 24-bit foreground.
    expect(outer()).toContain(`\x1b[38;2;${(id >> 16) & 255};${(id >> 8) & 255};${id & 255}m${PLACEHOLDER_BYTES}`);
    // Back to the steps: the image is deleted in the outer terminal, and was sent only once.
    await tmux('send-keys', 'u');
    const after = await waitFor(() => (outer().includes(`\x1b_Ga=d,d=I,i=${id},q=2`) ? outer() : null), {
      timeoutMs: 10_000,
      what: 'the image deleted',
    });
    expect(count(after, '\x1b_Ga=T')).toBe(1);
    expect((await pane()).includes('\u{10EEEE}')).toBe(false);
  });
});
