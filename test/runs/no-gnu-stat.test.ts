// A target without GNU coreutils' `stat` (a minimal image, a BusyBox one), over a real sshd whose
// login PATH lacks it or has a BusyBox-like one (test/harness/session-path.ts): every command that
// needs it names the missing command and exits 2 (`command-missing`), never an internal error; the
// pre-flight, which does not need it, still gives real verdicts (the host named, the fileroot
// tested for writing with the shell's own redirection even without `mktemp` and `hostname`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd } from '../harness/sshd.js';
import { sessionPathConfig } from '../harness/session-path.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { sentinelCli } from './cli-process.js';

const { cli, killAll } = sentinelCli(`no-gnu-stat-${process.pid}-Zq`);
const RUN = 'nosuch-20260101-000000-abcd';
const BUSYBOX_STAT = `#!/bin/sh
echo "stat: unrecognized option: c" >&2
echo "BusyBox v1.36.1 multi-call binary." >&2
exit 1
`;

let missing: SimOverSshd;
let busybox: SimOverSshd;
const dirs: string[] = [];

function pathDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'awrl-nostat-path-'));
  dirs.push(d);
  return d;
}

beforeAll(async () => {
  [missing, busybox] = await Promise.all([
    startSimOverSshd('awrl-nostat-', () => startSshd({ extraConfig: sessionPathConfig(pathDir(), ['stat']) })),
    startSimOverSshd('awrl-bbstat-', () =>
      startSshd({
        extraConfig: sessionPathConfig(pathDir(), ['hostname', 'mktemp'], { stat: BUSYBOX_STAT }),
      }),
    ),
  ]);
}, 120_000);

afterAll(async () => {
  killAll();
  await Promise.all([missing?.stop(), busybox?.stop()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function expectNamed(env: SimOverSshd, args: string[], why: RegExp): Promise<void> {
  const r = await cli([...args, '--json']);
  const what = `${args[0]}: ${r.stderr}`;
  expect(r.code, what).toBe(2);
  expect(r.stderr, what).toMatch(/^awrl-tui: .*needs GNU coreutils' `stat` on the target's PATH/m);
  expect(r.stderr, what).toMatch(why);
  expect(r.stderr, what).not.toMatch(/internal error|\n\s+at /);
  const last = JSON.parse(r.stdout.trim().split('\n').pop()!);
  expect(last, what).toMatchObject({ type: 'cli-error', exit: 2, code: 'command-missing' });
  expect(r.stdout.split('\n').filter((l) => l.startsWith('{"type":"cli-error"'))).toHaveLength(1);
  void env;
}

describe('a target without GNU stat', () => {
  it('no stat at all: runs, follow and --launch name it and exit 2 (command-missing)', async () => {
    const t = missing.target();
    await expectNamed(missing, ['runs', ...t], /there is no `stat` command/);
    await expectNamed(missing, ['follow', RUN, ...t], /there is no `stat` command/);
    await expectNamed(
      missing,
      ['--launch', ...t, '--config', missing.config, '++trial_name=nostat'],
      /there is no `stat` command/,
    );
    // The commands that read one run: a run not found there cannot be told from a workdir not there.
    for (const args of [
      ['stop', RUN],
      ['alerts', RUN],
      ['episodes', RUN],
      ['compare', RUN, RUN],
      ['sentinel', 'status', RUN],
    ])
      await expectNamed(missing, [...args, ...t], /there is no `stat` command/);
  }, 120_000);

  it('a BusyBox-like stat: named with what it answered, exit 2', async () => {
    await expectNamed(
      busybox,
      ['runs', ...busybox.target()],
      /its stat does not take -L -c: stat: unrecognized option/,
    );
  }, 60_000);

  it('pre-flight there, without stat, hostname or mktemp: the host named, the fileroot really tested', async () => {
    const r = await cli(['preflight', ...busybox.target(), '--config', busybox.config, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const fileroot = out.checks.find((c: { id: string }) => c.id === 'fileroot');
    expect(fileroot.seen, JSON.stringify(fileroot)).toMatch(/is writable/);
    const checkout = out.checks.find((c: { id: string }) => c.id === 'checkout');
    expect(checkout.seen).toMatch(/\(on \S+ as \S+\)/);
  }, 60_000);
});
