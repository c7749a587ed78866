// Alerts reach a person who is not looking, end to end: the simulator's faults over a real sshd,
// `--launch --follow` and `follow` with --notify / AWRL_NOTIFY / a targets.yaml `notify:` pointed at
// a real HTTP receiver on 127.0.0.1. The URLs' secret parts appear in no output, no argv sent to
// the target and no file of the run. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli, type CliProcess } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';
import { startReceiver, type HttpReceiver, type Received } from '../harness/http-receiver.js';
import { waitFor } from '../harness/wait.js';

const runIdOf = (text: string): string => /"runId":"([^"]+)"|^run\s+(\S+)/m.exec(text)!.slice(1).find(Boolean)!;
const awrlOf = (r: { body: string }) => (JSON.parse(r.body) as { awrl: Record<string, unknown> }).awrl;

describe('notifications from follow over a real sshd', { timeout: 180_000 }, () => {
  let env: SimOverSshd;
  let rx: HttpReceiver;
  let dir: string;
  const started: CliProcess[] = [];
  let nanRun: { runId: string; followed: string } | null = null;
  const cli = (args: string[], extra: Record<string, string> = {}) => {
    const p = startCli(args, { CPU_CLUSTER_TOKEN: 'notify-test-token', ...extra });
    started.push(p);
    return p;
  };

  beforeAll(async () => {
    [env, rx] = await Promise.all([startSimOverSshd('awrl-notify-'), startReceiver()]);
    dir = mkdtempSync(join(tmpdir(), 'awrl-notify-conf-'));
  });
  afterAll(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all([env?.stop(), rx?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every file of the run directory and every argv sent to the target, as one text. */
  const traces = (runId: string) =>
    execFileSync('sh', ['-c', `cat ${join(env.workdir, '.awrl', 'runs', runId)}/* 2>/dev/null; true`], {
      encoding: 'latin1',
    });

  it('--launch --follow: the OOM alert and the failed end (with its last lines) reach json:// and ntfy://', async () => {
    const before = rx.received.length;
    const l = cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=600 AWRL_SIM_FAULT=oom@3'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=notify-oom',
      '--follow',
      '--json',
      '--notify',
      `json://127.0.0.1:${rx.port}/hook-Secret1`,
      '--notify',
      `ntfy://127.0.0.1:${rx.port}/topic-Secret2`,
    ]);
    expect(await l.done, l.stderr.slice(-800)).toBe(1);
    // The run's sentinel sends (one sender): its end may land just after follow saw it.
    const sent = () => rx.received.slice(before);
    const ended = (r: Received) =>
      r.path === '/hook-Secret1' ? awrlOf(r).event === 'run-end' : String(r.headers.tags).includes('run-end');
    await waitFor(() => sent().filter(ended).length >= 2, {
      timeoutMs: 20_000,
      what: "the run's end on both channels",
    });
    const got = sent();
    const json = got.filter((r) => r.path === '/hook-Secret1').map(awrlOf);
    const ntfy = got.filter((r) => r.path === '/topic-Secret2');
    const oom = json.find((a) => a.event === 'alert' && /^oom:/.test(String(a.title)));
    expect(oom, JSON.stringify(json)).toMatchObject({ severity: 'error', target: expect.any(String) });
    const end = json.find((a) => a.event === 'run-end');
    expect(end).toMatchObject({ state: 'failed', runId: runIdOf(l.stdout) });
    expect((end!.lastLines as string[]).join('\n')).toMatch(/OutOfMemoryError|out of memory/i);
    // The same events through ntfy: the title as a header, the run's end as a failure.
    expect(ntfy).toHaveLength(json.length);
    expect(ntfy.some((r) => r.headers.tags === 'rotating_light,awrl,run-end')).toBe(true);
    // The alert came before the end, as the watch told them.
    expect(json.indexOf(oom!)).toBeLessThan(json.indexOf(end!));
    for (const text of [l.stdout, l.stderr, traces(runIdOf(l.stdout))]) expect(text).not.toMatch(/Secret1|Secret2/);
  });

  it('follow: a live NaN alert and the finished end through AWRL_NOTIFY and a profile; a refused channel is said as notify-failed', async () => {
    const l = cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=450 AWRL_SIM_FAULT=nan-grad@6'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=notify-nan',
    ]);
    expect(await l.done, l.stderr.slice(-800)).toBe(0);
    const runId = runIdOf(l.stdout);
    // The target as a profile with its own notify:, the ssh alias and workdir of the sim's sshd.
    const t = env.target();
    const targets = join(dir, 'targets.yaml');
    writeFileSync(
      targets,
      [
        'targets:',
        '  sim:',
        `    host: ${t[1]}`,
        `    ssh_config: ${t[3]}`,
        `    workdir: ${t[5]}`,
        `    notify: json://127.0.0.1:${rx.port}/profile-Secret3`,
      ].join('\n'),
    );
    rx.route('/refused-', { status: 403, body: 'forbidden' });
    const before = rx.received.length;
    const f = cli(['follow', runId, '--target', 'sim', '--json'], {
      AWRL_TARGETS_FILE: targets,
      AWRL_NOTIFY: `ntfy://127.0.0.1:${rx.port}/refused-Secret4 json://127.0.0.1:${rx.port}/env-Secret5`,
    });
    expect(await f.done, f.stderr.slice(-800)).toBe(0);
    const got = rx.received.slice(before);
    const events = (path: string) => got.filter((r) => r.path === path).map(awrlOf);
    // The profile's channel and AWRL_NOTIFY's got the same messages: the NaN alert read live, the end.
    const profile = events('/profile-Secret3');
    expect(events('/env-Secret5')).toEqual(profile);
    const nan = profile.find((a) => a.event === 'alert' && a.severity === 'error');
    expect(nan, JSON.stringify(profile)).toMatchObject({ step: expect.any(Number) });
    expect(profile.at(-1)).toMatchObject({ event: 'run-end', state: 'finished', runId });
    const failed = f.stdout
      .split('\n')
      .filter((s) => s.startsWith('{"type":"notify-failed"'))
      .map((s) => JSON.parse(s) as { channel: string; reason: string });
    // Every message the refused channel should have had is said, once each.
    expect(failed).toHaveLength(profile.length);
    expect(failed[0]).toMatchObject({ channel: `ntfy://127.0.0.1:${rx.port}/***`, reason: 'HTTP 403 (forbidden)' });
    expect(f.stderr).toMatch(/notify +alert not sent to ntfy:\/\/127\.0\.0\.1:\d+\/\*\*\*: HTTP 403/);
    for (const text of [f.stdout, f.stderr, traces(runId)]) expect(text).not.toMatch(/Secret[345]/);
    nanRun = { runId, followed: f.stdout };
  });

  it('alerts RUN: the history from the log by the same rules: what follow saw fire, whether or not anyone watched', async () => {
    expect(nanRun).not.toBeNull();
    const { runId, followed } = nanRun!;
    const a = cli(['alerts', runId, ...env.target(), '--json']);
    expect(await a.done, a.stderr).toBe(0);
    const history = a.stdout
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { type: string; id: string; fired: number; active: boolean; firstStep: number | null },
      );
    const fired = followed
      .split('\n')
      .filter((l) => l.startsWith('{"type":"alert",'))
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(fired.length).toBeGreaterThan(0);
    expect([...new Set(history.map((h) => h.id))].sort()).toEqual([...new Set(fired)].sort());
    for (const h of history) expect(h).toMatchObject({ type: 'alert-history', fired: expect.any(Number) });
    const human = cli(['alerts', runId, ...env.target()]);
    expect(await human.done).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^alerts of ${runId} on `));
  });
});
