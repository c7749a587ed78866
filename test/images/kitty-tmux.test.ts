// kitty's image inside tmux, for real: tmux (allow-passthrough on) runs in `script`, a pseudo-terminal
// standing for the user's kitty. The image printed in the pane reaches the outer terminal unwrapped
// from tmux's passthrough, and the pane itself holds the U+10EEEE placeholder cells as text.
// Needs dist/ built.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../runs/cli-process.js';
import { killTree } from '../harness/sshd.js';
import { waitFor } from '../harness/wait.js';
import { encodePng } from '../../src/images/png.js';
import { blank } from '../../src/images/raster.js';

const run = promisify(execFile);

describe('kitty graphics through tmux', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-kitty-tmux-'));
  const socket = `awrl-kitty-${process.pid}`;
  let scriptPid: number | undefined;
  afterAll(async () => {
    await run('tmux', ['-L', socket, 'kill-server']).catch(() => undefined);
    if (scriptPid) await killTree(scriptPid);
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the transmission to the outer terminal and leaves placeholder cells in the pane', async () => {
    writeFileSync(join(dir, 'shot.png'), encodePng(blank(64, 40, [30, 120, 200])));
    writeFileSync(
      join(dir, 'show.mjs'),
      `import { readFileSync } from 'node:fs';
import { renderShot } from ${JSON.stringify(join(ROOT, 'dist/images/render.js'))};
const o = renderShot(readFileSync(${JSON.stringify(join(dir, 'shot.png'))}), { mode: 'kitty', cols: 16, rows: 5, id: 0x0a0b0c, tmux: true });
process.stdout.write(o.prelude + o.rows.join('\\r\\n') + '\\r\\nshown\\r\\n');
`,
    );
    writeFileSync(join(dir, 'tmux.conf'), 'set -g allow-passthrough on\n');
    const typescript = join(dir, 'outer.bin');
    const inner = `node ${join(dir, 'show.mjs')}; sleep 600`;
    const tmux = `tmux -L ${socket} -f ${join(dir, 'tmux.conf')} new-session -x 80 -y 20 '${inner}'`;
    const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm-256color' };
    delete env.TMUX;
    // stdin a pipe kept open: script ends its session when its input ends.
    const child = spawn('script', ['-q', '-f', '-c', tmux, typescript], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    scriptPid = child.pid;
    const outer = await waitFor(
      () => {
        const b = readFileSync(typescript, 'latin1');
        return b.includes('\x1b_Ga=T') && b.includes('shown') ? b : null;
      },
      { timeoutMs: 20_000, what: 'the outer terminal to receive the image' },
    );
    // Unwrapped: the outer terminal gets kitty's own APC, not tmux's DCS envelope.
    expect(outer).toContain('\x1b_Ga=T,q=2,f=100,U=1,i=658188,c=16,r=5,m=');
    expect(outer).not.toContain('\x1bPtmux;');
    const pane = (await run('tmux', ['-L', socket, 'capture-pane', '-p'])).stdout.split('\n');
    const cells = pane.filter((l) => l.includes('\u{10EEEE}'));
    expect(cells.length).toBeGreaterThanOrEqual(2);
    expect([...cells[0]].filter((c) => c === '\u{10EEEE}').length).toBeGreaterThanOrEqual(8);
  });
});
