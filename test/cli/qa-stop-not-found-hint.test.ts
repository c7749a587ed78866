// `stop RUN` of a run that is not there, on the local target with --workdir of a `sim init` dir:
// the advice said `see awrl-tui runs --target local`, without the --workdir, so the command to copy
// listed another checkout's runs. It names the workdir (and where it looked), as follow does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startCli } from '../runs/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'awrl-qa-stop-'));
const workdir = join(dir, 'checkout');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stop of an unknown run on the local target', { timeout: 60_000 }, () => {
  it('exits 2 and its advice lists the runs of the same --workdir', async () => {
    const init = startCli(['sim', 'init', workdir], {});
    expect(await init.done, init.stderr).toBe(0);
    const p = startCli(['stop', 'no-such-run-20260101-000000-abcd', '--target', 'local', '--workdir', workdir], {});
    expect(await p.done, p.stderr).toBe(2);
    expect(p.stderr).toContain('no run no-such-run-20260101-000000-abcd on local');
    expect(p.stderr).toContain(`awrl-tui runs --target local --workdir ${workdir}`);
  });
});
