// Issue #17 §5: `watch RUN --target T --workdir W` with a W that does not exist says so (exit 2),
// as `--launch`, `runs` and `follow` do, instead of a dashboard of "no runs". In a real terminal.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmuxSession } from '../harness/tmux.js';
import { BIN } from './sim-run.js';

describe('watch with a missing --workdir (tmux, built CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-watch-wd-'));
  const sessions: TmuxSession[] = [];
  afterAll(async () => {
    for (const t of sessions) await t.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 2 naming the workdir and the target', async () => {
    const missing = join(dir, 'no-checkout');
    const t = await TmuxSession.start({
      command: `sh -c 'node ${BIN} watch some-run-20260101-000000-0000 --target local --workdir ${missing}; echo EXITED=$?; exec sleep 600'`,
      width: 160,
      height: 20,
      env: { XDG_CONFIG_HOME: join(dir, 'no-profiles') },
    });
    sessions.push(t);
    const screen = await t.waitForScreen((x) => x.includes('EXITED='), 'the watch to exit', 30_000);
    expect(screen).toContain('EXITED=2');
    expect(screen).toContain(`workdir ${missing} does not exist on local`);
  }, 60_000);
});
