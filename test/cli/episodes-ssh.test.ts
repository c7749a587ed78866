// `awrl-tui episodes` over a real sshd against the simulator's dumps (written as webgym writes them):
// the list by version with the record's own field names, one episode drawn at a terminal with its
// screenshots, a pin copied here, and bad input: a record cut short, a corrupt and a missing PNG,
// dumping off, the dump directory gone. Needs dist/ built.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli } from '../runs/cli-process.js';
import { startSimOverSshd, type SimOverSshd } from '../runs/sim-over-sshd.js';

const TOKEN = { CPU_CLUSTER_TOKEN: 'episodes-ssh-token' };

describe('episodes over ssh', { timeout: 180_000 }, () => {
  let env: SimOverSshd;
  let runId = '';
  /** The first listing's episodes (the later tests pick from them). */
  let listed: Record<string, any>[] = [];
  const pick = (version: number, i = 0, minSteps = 1) =>
    listed.filter((e) => e.version === version && e.n_steps >= minSteps)[i];
  const data = mkdtempSync(join(tmpdir(), 'awrl-pins-'));
  const cli = async (args: string[], extra: Record<string, string> = {}) => {
    const p = startCli(args, { ...TOKEN, ...extra });
    const code = await p.done;
    return { code, stdout: p.stdout, stderr: p.stderr };
  };
  const where = () => env.target().slice(0, 6); // --target, -F, --workdir (no --setup)
  const lines = (s: string) =>
    s
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-episodes-ssh-');
    const l = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant'),
      '--config',
      env.config,
      'total_train_epochs=1',
      '++trial_name=episodes-ssh',
      '--follow',
    ]);
    expect(l.code, (l.stdout + l.stderr).slice(-600)).toBe(0);
    runId = /^run\s+(\S+)/m.exec(l.stdout)![1];
  }, 120_000);
  afterAll(async () => {
    await env?.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('lists every dumped episode by version with the record’s field names (--json), one version with --version', async () => {
    const all = await cli(['episodes', runId, ...where(), '--json']);
    expect(all.code, all.stderr).toBe(0);
    const eps = lines(all.stdout);
    listed = eps;
    // 8 steps, 2 groups of 8 each: versions 0-7.
    expect(eps).toHaveLength(128);
    expect(new Set(eps.map((e) => e.version))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
    for (const e of eps) {
      expect(Object.keys(e)).toEqual(
        expect.arrayContaining(['task_id', 'episode_idx', 'reward', 'n_steps', 'task_info']),
      );
      expect(e).toMatchObject({ kind: 'train', tail_version: e.version });
      expect(e.staleness).toBe(7 - e.head_version);
    }
    const v3 = lines((await cli(['episodes', runId, ...where(), '--json', '--version', '3'])).stdout);
    expect(v3).toHaveLength(16);
    expect(v3.every((e) => e.version === 3)).toBe(true);
    const table = await cli(['episodes', runId, ...where(), '--version', '3']);
    expect(table.stdout.split('\n')[0]).toMatch(/^VERSION\s+KIND\s+TASK\/EP\s+WEBSITE/);
  });

  it('--show draws each step: half-block screenshot, action, page, response, evaluator', async () => {
    const task = pick(5);
    const spec = `${task.task_id}/${task.episode_idx}`;
    const r = await cli(['episodes', runId, ...where(), '--show', spec, '--images', 'blocks']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`episode ${spec}, version 5`);
    expect(r.stdout).toMatch(/\x1b\[38;2;\d+;\d+;\d+;48;2;\d+;\d+;\d+m▀/);
    expect(r.stdout.match(/^── step \d+ of \d+/gm)).toHaveLength(task.n_steps);
    expect(r.stdout).toContain('action: ');
    expect(r.stdout).toMatch(/evaluator: Criterion A - Fact 1: SUCCESS/);
    const none = await cli(['episodes', runId, ...where(), '--show', spec, '--step', '0']);
    // Not a terminal: no image bytes, the screenshot named.
    expect(none.stdout).not.toContain('\x1b[');
    expect(none.stdout).toMatch(/\[screenshot task_.*_step_000\.png: not drawn \(not a terminal\)\]/);
  });

  it('--pin copies the record and its screenshots to $XDG_DATA_HOME/awrl-tui/pins', async () => {
    const e = pick(2, 1);
    const r = await cli(['episodes', runId, ...where(), '--pin', `${e.task_id}/${e.episode_idx}`, '--version', '2'], {
      XDG_DATA_HOME: data,
    });
    expect(r.code, r.stderr).toBe(0);
    const dir = join(data, 'awrl-tui', 'pins', runId, 'train-2');
    const files = readdirSync(dir);
    expect(files).toContain(`${e.task_id}_ep${e.episode_idx}.json`);
    expect(files.filter((f) => f.endsWith('.png'))).toHaveLength(e.n_steps);
    expect(existsSync(join(dir, `${e.task_id}_ep${e.episode_idx}.pin.json`))).toBe(true);
  });

  it('says what is wrong: a record cut short, a corrupt and a missing screenshot (the rest shown)', async () => {
    const a = pick(6, 0);
    const b = listed.find((e) => e.version === 6 && e.n_steps >= 3 && e !== a)!;
    truncateSync(a.file as string, 120);
    writeFileSync(b.screenshot_paths[0] as string, 'not a png');
    unlinkSync(b.screenshot_paths[1] as string);
    const after = lines((await cli(['episodes', runId, ...where(), '--json', '--version', '6'])).stdout);
    const cut = after.find((e) => e.file === a.file)!;
    expect(cut).toMatchObject({ task_id: a.task_id, episode_idx: a.episode_idx });
    expect(cut.problem).toMatch(/JSON cut short after 120 bytes/);
    const show = await cli([
      'episodes',
      runId,
      ...where(),
      '--show',
      `${b.task_id}/${b.episode_idx}`,
      '--images',
      'blocks',
    ]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('[screenshot: not a PNG]');
    expect(show.stdout).toContain('[screenshot: missing (not copied, or wiped)]');
    expect(show.stdout.match(/▀/g)?.length ?? 0).toBeGreaterThan(0);
  });

  it('no dumps: dumping off says how to turn it on (exit 2, code no-dumps)', async () => {
    const off = await cli([
      '--launch',
      ...env.target('AWRL_SIM_SPEED=instant'),
      '--config',
      env.config,
      'total_train_epochs=1',
      'rollout.dump_to_file=false',
      '++trial_name=episodes-nodump',
      '--follow',
    ]);
    expect(off.code, off.stderr.slice(-400)).toBe(0);
    const offId = /^run\s+(\S+)/m.exec(off.stdout)![1];
    const r = await cli(['episodes', offId, ...where()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dumping is off: rollout\.dump_to_file is false.*rollout\.dump_to_file=true/);
    const j = await cli(['episodes', offId, ...where(), '--json']);
    expect(lines(j.stdout)[0]).toMatchObject({ type: 'cli-error', code: 'no-dumps' });
  });

  it('pre-flight and --launch --resume warn that train.py will delete the dumps under logs/root, pins counted', async () => {
    const pf = await cli(['preflight', ...env.target(), '--config', env.config, '++trial_name=episodes-ssh']);
    expect(pf.stderr).toMatch(
      /warning: webgym\/train\.py deletes \S+\/episodes-ssh\/\{rollout,test-rollout\} when it starts: 128 /,
    );
    const r = await cli(['--launch', '--resume', runId, ...env.target('AWRL_SIM_SPEED=instant'), '--force'], {
      XDG_DATA_HOME: data,
    });
    expect(r.code, r.stderr.slice(-600)).toBe(0);
    expect(r.stderr).toMatch(
      /warning: webgym\/train\.py deletes \S+\/logs\/root\/\S+\/episodes-ssh\/\{rollout,test-rollout\} when it starts: 128 dumped episodes in 8 version directories will be lost \(1 of them pinned here \(safe\); pin one first with: awrl-tui episodes /,
    );
    // The resumed trainer is ended here, not left to the checkout's removal (whatever stop finds after).
    await cli(['stop', runId, ...where(), '--grace', '2']);
  });
});
