// `awrl-tui compare` as a user runs it, over a real sshd, on simulated runs: two seeds and learning
// rates, different lengths, one crashed mid-way and resumed; a run still running; a run on
// another target name; a local log file; a run whose log is gone. Needs dist/ built.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sentinelCli, startCli } from './cli-process.js';
import { startSimOverSshd, type SimOverSshd } from './sim-over-sshd.js';
import { waitFor } from '../harness/wait.js';
import { evaluateConfig, diffConfigs } from '../../src/config/index.js';

const SECRET = `compare-sentinel-${process.pid}-Qx7`;
const { start, cli, killAll } = sentinelCli(SECRET);
const runIdOf = (out: string) => /^run\s+(\S+)/m.exec(out)![1];

describe('compare two runs over ssh', () => {
  let env: SimOverSshd;
  const target = (setup = '') => env.target(setup);
  let runA = '';
  let runB = '';
  const A_OVERRIDES = ['total_train_epochs=1', 'seed=1', '++trial_name=cmp-a'];
  const B_OVERRIDES = ['total_train_epochs=2', 'seed=2', 'actor.optimizer.lr=1e-5', 'recover.freq_steps=3'];

  beforeAll(async () => {
    env = await startSimOverSshd('awrl-compare-');
    const a = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant'),
      '--config',
      env.config,
      ...A_OVERRIDES,
      '--follow',
    ]);
    expect(a.code, a.stderr).toBe(0);
    runA = runIdOf(a.stdout);
    // B crashes in step 5 (an OOM) and is resumed from its checkpoint after step 3: step 4 is logged twice.
    const b = await cli([
      '--launch',
      ...target('AWRL_SIM_SPEED=instant AWRL_SIM_FAULT=oom@5'),
      '--config',
      env.config,
      ...B_OVERRIDES,
      '++trial_name=cmp-b',
      '--follow',
    ]);
    expect(b.code, b.stderr).toBe(1);
    runB = runIdOf(b.stdout);
    const again = await cli(['--launch', '--resume', runB, ...target('AWRL_SIM_SPEED=instant'), '--follow']);
    expect(again.code, again.stderr).toBe(0);
  }, 240_000);
  afterAll(async () => {
    killAll();
    await env?.stop();
  });

  const logOf = (id: string) => join(env.workdir, '.awrl', 'runs', id, 'stdout.log');
  /** Each step's reward as the log last says it (parse --json: the later attempt's values stand). */
  async function rewardsOf(id: string): Promise<Map<number, number>> {
    const parsed = await cli(['parse', logOf(id), '--json']);
    const m = new Map<number, number>();
    for (const l of parsed.stdout.trim().split('\n')) {
      const e = JSON.parse(l);
      if (e.type === 'step') m.set(e.globalStep, e.stats['rollout/reward']);
    }
    return m;
  }

  it('--json: the series by step (the resumed attempt’s values), delta b − a, smoothing, and exactly the config keys that differ', async () => {
    const r = await cli(['compare', runA, runB, ...target(), '--json', '--smooth', '0.9']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ type: 'compare', smoothing: 0.9 });
    expect(out.a).toMatchObject({ runId: runA, state: 'finished', log: 'read', steps: 8, lastStep: 8, resumes: 0 });
    expect(out.b).toMatchObject({ runId: runB, state: 'finished', log: 'read', steps: 16, lastStep: 16, resumes: 1 });
    const s = out.series['rollout/reward'];
    expect(Object.keys(s).slice(0, 6)).toEqual(['steps', 'a', 'b', 'aSmoothed', 'bSmoothed', 'delta']);
    expect(s.steps).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    const ra = await rewardsOf(runA);
    const rb = await rewardsOf(runB);
    expect(s.a).toEqual(s.steps.map((g: number) => ra.get(g) ?? null));
    expect(s.b).toEqual(s.steps.map((g: number) => rb.get(g)));
    // The log holds step 4 twice; the later value is the one compared.
    const log = readFileSync(logOf(runB), 'utf8');
    expect(log.match(/Train step 4\/16 done/g)).toHaveLength(2);
    for (let k = 0; k < 16; k++)
      if (k < 8) expect(s.delta[k]).toBeCloseTo(s.b[k] - s.a[k], 12);
      else expect(s.delta[k]).toBeNull();
    expect(s.latestCommon).toMatchObject({ step: 8 });
    // TensorBoard's EMA of b's own points, written out here.
    let last = 0;
    s.b.forEach((y: number, n: number) => {
      last = last * 0.9 + 0.1 * y;
      expect(s.bSmoothed[n]).toBeCloseTo(last / (1 - Math.pow(0.9, n + 1)), 12);
    });
    expect(s.aSmoothed.slice(8)).toEqual(new Array(8).fill(null));
    // Training hours grow, the crash's downtime not counted; samples from the batch records.
    expect(s.bHours[15]).toBeGreaterThan(s.bHours[14]);
    expect(s.aSamples[0]).toBeGreaterThan(0);
    // Exactly the resolved keys that differ, as the config engine resolves the two launches.
    const text = readFileSync(env.config, 'utf8');
    const resolved = (o: string[]) =>
      evaluateConfig({ fileName: env.config, text, overrides: o, envNames: Object.keys(process.env) }).resolved!;
    const want = diffConfigs(resolved(A_OVERRIDES), resolved([...B_OVERRIDES, '++trial_name=cmp-b'])).map((c) => c.key);
    expect(out.configDiff.map((d: { key: string }) => d.key).sort()).toEqual(want.sort());
    expect(out.configDiff).toContainEqual({ key: 'seed', a: 1, b: 2 });
    expect(out.configDiff).toContainEqual({ key: 'actor.optimizer.lr', a: 5e-6, b: 1e-5 });
    expect(out.configDiff.map((d: { key: string }) => d.key)).toContain('sglang.random_seed');
    expect(Object.keys(out.phases).length).toBeGreaterThan(0);
  });

  it('--keys: a key the cockpit does not read crosses the filter too (its rows kept), with the values the log has', async () => {
    const key = 'ppo_actor/update/grad_norm';
    const r = await cli(['compare', runA, runB, ...target(), '--json', '--keys', key, '--smooth', '0']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out.series)).toEqual([key]);
    const parsed = await cli(['parse', logOf(runB), '--json']);
    const logged = new Map<number, unknown>();
    for (const l of parsed.stdout.trim().split('\n')) {
      const e = JSON.parse(l);
      if (e.type === 'step') logged.set(e.globalStep, e.stats[key]);
    }
    expect(out.series[key].b).toEqual(out.series[key].steps.map((g: number) => logged.get(g)));
    expect(out.series[key].b.every((v: unknown) => typeof v === 'number')).toBe(true);
    expect(out.series[key].bSmoothed).toEqual(out.series[key].b);
  });

  it('the human and Markdown forms: the config diff, the side-by-side summary and Δ at the latest common step', async () => {
    const r = await cli(['compare', runA, runB, ...target()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^a: \S+:\S+ \(finished, step 8\)$/m);
    expect(r.stdout).toMatch(/^b: \S+:\S+ \(finished, step 16, resumed 1×\)$/m);
    expect(r.stdout).toMatch(/^ {2}seed +1 +2$/m);
    expect(r.stdout).toMatch(/^final reward +-?\d\.\d{4} +-?\d\.\d{4}$/m);
    expect(r.stdout).toMatch(/^ {2}timeperf\/\S+ +\d+\.\ds +\d+\.\ds$/m);
    expect(r.stdout).toMatch(/^Δ rollout\/reward [+−]\d\.\d{4} at step 8 \(smoothed 0\.6: [+−]\d\.\d{4}\)$/m);
    const md = await cli(['compare', runA, runB, ...target(), '--md']);
    expect(md.stdout).toMatch(/^\| `seed` \| 1 \| 2 \|$/m);
    expect(md.stdout).toMatch(/^\| final reward \| \S+ \| \S+ \|$/m);
    expect(md.stdout).toMatch(/^- Δ rollout\/reward/m);
  });

  it('a run on another target name (TARGET:RUN), and a local log file whose config is not known', async () => {
    const targets = join(env.workdir, 'targets.yaml');
    writeFileSync(
      targets,
      `targets:\n  other:\n    host: ${env.sshd.alias}\n    ssh_config: ${env.sshd.sshConfigFile}\n    workdir: ${env.workdir}\n`,
    );
    const p = startCli(['compare', `other:${runA}`, runB, ...target(), '--json'], { AWRL_TARGETS_FILE: targets });
    expect(await p.done, p.stderr).toBe(0);
    const out = JSON.parse(p.stdout);
    expect(out.a).toMatchObject({ target: 'other', label: `other:${runA}`, steps: 8 });
    expect(out.b.target).toBe(env.sshd.alias);
    const f = await cli(['compare', logOf(runA), runB, ...target(), '--json']);
    expect(f.code, f.stderr).toBe(0);
    const fo = JSON.parse(f.stdout);
    expect(fo.a).toMatchObject({ runId: null, state: 'file', steps: 8 });
    expect(fo.configDiff).toBeNull();
    expect(fo.configDiffUnknown).toMatch(/^a: a log file alone/);
    expect(fo.series['rollout/reward'].a).toEqual(JSON.parse(p.stdout).series['rollout/reward'].a);
  });

  it('a run still running is compared as far as its log goes', async () => {
    const c = start(['--launch', ...target('AWRL_SIM_SPEED=150'), '--config', env.config, '++trial_name=cmp-c']);
    expect(await c.done, c.stderr).toBe(0);
    const runC = runIdOf(c.stdout);
    await waitFor(() => /Train step 2\/\d+ done/.test(readFileSync(logOf(runC), 'utf8')), {
      timeoutMs: 90_000,
      what: 'two steps of the running run',
    });
    const r = await cli(['compare', runA, runC, ...target()]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^b: \S+ \(running, step \d+ so far\)$/m);
    const stop = await cli(['stop', runC, ...target(), '--yes']);
    expect(stop.code, stop.stderr).toBe(0);
  }, 150_000);

  it('a run whose log is gone is said so (exit 1), not drawn as an empty series; a bad side is bad input', async () => {
    rmSync(logOf(runA));
    const r = await cli(['compare', runA, runB, ...target(), '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.a).toMatchObject({ runId: runA, log: 'missing' });
    expect(out.a.steps).toBeUndefined();
    const h = await cli(['compare', runA, runB, ...target()]);
    expect(h.stdout).toMatch(/^a: \S+ \(its log \S+stdout\.log is gone: no series\)$/m);
    expect(h.stdout).toMatch(/^Δ rollout\/reward: no step where both runs have a value$/m);
    const bad = await cli(['compare', 'no-such-run', runB, ...target()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no run no-such-run on/);
    const smooth = await cli(['compare', runA, runB, ...target(), '--smooth', '1']);
    expect(smooth.code).toBe(2);
  });
});
