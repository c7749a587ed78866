// `awrl-tui preflight` end to end over a real OpenSSH server, with a fake nvidia-smi on the target's
// PATH and real processes holding "GPUs" (their /proc/PID/environ carries the run tag).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { waitFor, pidAlive } from '../harness/wait.js';
import { readFileSync } from 'node:fs';
import { evaluateConfig } from '../../src/config/index.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { resolveTarget } from '../../src/runs/index.js';
import { formatChecks, runPreflight, runPreflightReport, type CheckResult } from '../../src/preflight/index.js';
import { simInit } from '../../src/sim/init.js';
import { serializeRunRecord, type RunRecord } from '../../src/runs/run-record.js';
import { shellQuote } from '../../src/remote/quote.js';
import { writeState } from '../../src/sim/state.js';
import { CONFIG, makeWorld, preflight, type World } from './world.js';

const SENTINEL = 'sentinel-omniboxes-token-5f0e1d';

let sshd: SshdHandle;
let world: World;
let transport: Transport;
const children: ChildProcess[] = [];

beforeAll(async () => {
  sshd = await startSshd();
  world = makeWorld();
  transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
});

afterAll(async () => {
  for (const c of children) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
  await transport?.close();
  await sshd?.stop();
  world?.remove();
});

/** The library path the launcher uses: config engine → runPreflight over the ssh Transport. */
async function viaSsh(
  overrides: string[] = [],
  envNames: string[] = ['CPU_CLUSTER_TOKEN'],
): Promise<{ json: { host: string; checks: CheckResult[] }; text: string }> {
  const ev = evaluateConfig({
    fileName: CONFIG,
    text: readFileSync(CONFIG, 'utf8'),
    overrides: [...world.overrides, ...overrides],
    envNames,
  });
  expect(ev.hasErrors).toBe(false);
  const target = resolveTarget(
    { target: sshd.alias, sshConfigFile: sshd.sshConfigFile, workdir: world.workdir, setup: world.setup },
    {},
  );
  if (typeof target === 'string') throw new Error(target);
  const { checks, facts } = await runPreflightReport(transport, { evaluation: ev, target, envNames });
  return { json: { host: facts.host, checks }, text: formatChecks(checks) };
}

/** The command itself, on a target (`local` or the sshd alias). */
const cli = (
  targetArgs: string[],
  extra: string[] = [],
  env: Record<string, string> = { CPU_CLUSTER_TOKEN: SENTINEL },
) =>
  preflight(
    [
      ...targetArgs,
      '--workdir',
      world.workdir,
      '--setup',
      world.setup,
      '--config',
      CONFIG,
      ...world.overrides,
      ...extra,
    ],
    env,
    world.dir,
  );
const GPUS = (used: (i: number) => number = () => 4) =>
  Array.from(
    { length: 8 },
    (_, i) => `${i}, GPU-${i}0000000-1111-2222-3333-444444444444, NVIDIA H100 80GB HBM3, ${used(i)}, 81559`,
  );

/** A direct run of `runId` under the world's workdir whose job is `pid` (alive: running). */
function writeRun(runId: string, pid: number): void {
  const runDir = join(world.workdir, '.awrl', 'runs', runId);
  mkdirSync(runDir, { recursive: true });
  const at = '2026-01-01T00:00:00.000Z';
  const record: RunRecord = {
    ...{ version: 1, runId, experiment: 'e', trial: runId, target: sshd.alias, workdir: world.workdir, runDir },
    ...{ backend: 'direct', argv: ['python3'], secretNames: [], createdAt: at, chainJobIds: [], autoResume: 0 },
    attempts: [{ n: 1, reason: 'launch', startedAt: at, pid }],
    nodes: 1,
  };
  writeFileSync(join(runDir, 'run.json'), serializeRunRecord(record));
  writeFileSync(join(runDir, 'job.pid'), `${pid}\n`);
}

const check = (json: { checks: CheckResult[] }, id: string): CheckResult => {
  const c = json.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}: ${JSON.stringify(json.checks)}`);
  return c;
};

describe('preflight over a real sshd', () => {
  it('passes on a healthy target', async () => {
    const { json } = await viaSsh();
    expect(json.checks.filter((c) => c.result === 'error')).toEqual([]);
    expect(check(json, 'checkout').seen).toBe(
      `${world.workdir} has webgym/train.py (on ${json.host} as ${userInfo().username})`,
    );
    expect(check(json, 'dataset:train').seen).toBe(
      `${world.train}: 300 lines ÷ batch_size 32 = 9 steps per epoch; × 10 epochs = 90 steps`,
    );
    expect(check(json, 'gpus')).toMatchObject({
      result: 'ok',
      seen: `${json.host}: 8 × NVIDIA H100 80GB HBM3; allocation_mode needs 8`,
    });
    expect(check(json, 'gpu-memory')).toMatchObject({ result: 'ok', seen: 'all 8 GPUs free' });
    expect(check(json, 'resume')).toMatchObject({ result: 'ok' });
    expect(check(json, 'fileroot').result).not.toBe('error');
  });

  it("a GPU held by a RUNNING run's process is in use, not a leftover; an ended run's is a leftover", async () => {
    // A running run: its job is alive (its own process group), its process holds GPU 3.
    const running = '20260101-0000-liverun';
    const holder = spawn('sleep', ['300'], {
      env: { ...process.env, AWRL_RUN_ID: running },
      stdio: 'ignore',
      detached: true,
    });
    children.push(holder);
    const pid = holder.pid!;
    await waitFor(() => pidAlive(pid), { what: 'the holder process' });
    writeRun(running, pid);
    // An ended run: its job is gone, one of its processes still holds GPU 5.
    const ended = '20260101-0000-oldrun';
    const gone = spawn('true', [], { stdio: 'ignore' });
    await new Promise((r) => gone.on('exit', r));
    writeRun(ended, gone.pid!);
    const left = spawn('sleep', ['300'], { env: { ...process.env, AWRL_RUN_ID: ended }, stdio: 'ignore' });
    children.push(left);
    await waitFor(() => pidAlive(left.pid!), { what: 'the leftover process' });
    world.setGpus(GPUS((i) => (i === 3 ? 40_000 : i === 5 ? 20_000 : 4)));
    world.setApps([
      `${pid}, GPU-30000000-1111-2222-3333-444444444444, 39990, sleep`,
      `${left.pid}, GPU-50000000-1111-2222-3333-444444444444, 19990, sleep`,
    ]);
    try {
      const { json, text } = await viaSsh();
      const c = check(json, 'gpu-memory');
      expect(c.result).toBe('error');
      expect(c.seen).toMatch(
        new RegExp(
          `^${json.host} GPU 3: 40000/81559 MiB in use by PID ${pid} \\(sleep 300, 39990 MiB, in use by running run ${running}\\); `,
        ),
      );
      expect(c.seen).toMatch(
        new RegExp(`PID ${left.pid} \\(sleep 300, 19990 MiB, leftover of run ${ended} \\((failed|stopped)\\)\\)$`),
      );
      expect(c.seen).not.toContain(`leftover of run ${running}`);
      // The ended run's leftovers are to be stopped; the running run is not advised as a leftover.
      const where = `--target ${sshd.alias} -F ${shellQuote(sshd.sshConfigFile)} --workdir ${shellQuote(world.workdir)} --setup ${shellQuote(world.setup)}`;
      expect(c.todo).toContain(`Stop the leftovers of ended runs: awrl-tui stop ${ended} ${where}.`);
      expect(c.todo).toContain(`Run ${running} may still be going (awrl-tui runs ${where}): wait for it to end`);
      expect(c.todo).not.toMatch(new RegExp(`leftovers[^.]*${running}`));
      expect(text).toContain(`ERROR gpu-memory`);
    } finally {
      world.setApps([]);
      world.setGpus(GPUS());
      for (const p of [pid, left.pid!]) process.kill(p, 'SIGKILL');
      await waitFor(() => !pidAlive(pid) && !pidAlive(left.pid!), { what: 'the holders to exit' });
    }
  });

  it("with the simulator's fake nvidia-smi, a busy simulated node is reported process by process", async () => {
    const dist = new URL('../../dist', import.meta.url).pathname;
    const root = new URL('../..', import.meta.url).pathname;
    const sim = simInit(join(world.dir, 'sim'), dist, root);
    const trainer = spawn('sleep', ['300'], { stdio: 'ignore' }); // stands for the simulated trainer's process
    children.push(trainer);
    await waitFor(() => pidAlive(trainer.pid!), { what: 'the stand-in trainer' });
    // 4 rollout + 4 actor GPUs on one node, in the PPO update: every GPU holds memory.
    writeState([join(sim.dir, 'state', 'state.json')], {
      pid: trainer.pid!,
      phase: 'ppo_update',
      step: 3,
      updatedMs: Date.now(),
      nNodes: 1,
      gpusPerNode: 8,
      rolloutGpus: 4,
      actorGpus: 4,
      seed: 1,
    });
    try {
      const ev = evaluateConfig({
        fileName: CONFIG,
        text: readFileSync(CONFIG, 'utf8'),
        overrides: world.overrides,
        envNames: ['CPU_CLUSTER_TOKEN'],
      });
      const target = resolveTarget(
        {
          target: sshd.alias,
          sshConfigFile: sshd.sshConfigFile,
          workdir: sim.dir,
          setup: `export PATH='${sim.dir}/bin':"$PATH"`,
        },
        {},
      );
      if (typeof target === 'string') throw new Error(target);
      const checks = await runPreflight(transport, { evaluation: ev, target, envNames: ['CPU_CLUSTER_TOKEN'] });
      expect(checks.find((c) => c.id === 'checkout')!.result).toBe('ok'); // sim init makes a checkout-shaped dir
      const mem = checks.find((c) => c.id === 'gpu-memory')!;
      expect(mem.result).toBe('error');
      // The holder is a real process of the node: the (stand-in) trainer, on every GPU of its node.
      for (let i = 0; i < 8; i++)
        expect(mem.seen).toMatch(
          new RegExp(`GPU ${i}: \\d+/81559 MiB in use by PID ${trainer.pid} \\(sleep 300, \\d+ MiB\\)`),
        );
      expect(mem.todo).toContain(`kill ${trainer.pid}`);
    } finally {
      process.kill(trainer.pid!, 'SIGKILL');
      await waitFor(() => !pidAlive(trainer.pid!), { what: 'the stand-in trainer to exit' });
    }
  });

  it('a missing model path and a missing dataset are errors', async () => {
    const { json } = await viaSsh([
      `actor.path=${world.dir}/models/Qwen3-VL-32B-Missing`,
      `train_dataset.path=${world.dir}/webgym_gone/train.jsonl`,
    ]);
    expect(check(json, 'model')).toMatchObject({
      result: 'error',
      seen: `actor.path ${world.dir}/models/Qwen3-VL-32B-Missing does not exist on ${json.host}`,
    });
    expect(check(json, 'dataset:train')).toMatchObject({
      result: 'error',
      seen: `train_dataset.path ${world.dir}/webgym_gone/train.jsonl does not exist on ${json.host}`,
    });
  });

  it('an existing recover checkpoint makes preflight say RESUME at the right step', async () => {
    const info = join(world.fileroot, 'checkpoints', userInfo().username, 'pfexp', 'pftrial', 'recover_info');
    mkdirSync(info, { recursive: true });
    writeFileSync(
      join(info, 'step_info.json'),
      JSON.stringify({ epoch: 0, epoch_step: 1, global_step: 1, steps_per_epoch: 2 }),
    );
    try {
      const { json, text } = await viaSsh();
      expect(check(json, 'resume')).toMatchObject({
        result: 'warning',
        seen: 'this launch will RESUME from step 2 (recover checkpoint of pfexp/pftrial after step 2 of 20; training continues at step 3)',
      });
      expect(text).toContain('WARN  resume');
    } finally {
      rmSync(join(world.fileroot, 'checkpoints'), { recursive: true, force: true });
    }
  });

  it('values with quotes and $(…) travel as data, never as script text', async () => {
    const odd = join(world.dir, `webgym it's $(touch pwned) "x"`);
    const { json } = await viaSsh([`train_dataset.path='${odd.replace(/'/g, "\\'")}/train.jsonl'`]);
    expect(check(json, 'dataset:train').seen).toBe(
      `train_dataset.path ${odd}/train.jsonl does not exist on ${json.host}`,
    );
    expect(existsSync(join(world.workdir, 'pwned'))).toBe(false);
  });

  it('a missing required secret is an error, named but never valued', async () => {
    const { json } = await viaSsh([], []);
    expect(check(json, 'secrets')).toMatchObject({ result: 'error' });
    expect(check(json, 'secrets').seen).toContain('CPU_CLUSTER_TOKEN is not set');
  });
});

describe('awrl-tui preflight (the command)', () => {
  it('exits 0 on a healthy target and prints the checks, never a secret value', () => {
    const r = cli(['--target', 'local']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^preflight of pfexp\/pftrial on local \(direct\)\n/);
    expect(r.stdout).toContain('ok    gpu-memory');
    expect(r.stdout).toMatch(/preflight: no errors/);
    expect(r.stdout + r.stderr).not.toContain(SENTINEL);
  });

  it('a fresh `sim init` checkout passes pre-flight with its bin/ on PATH', () => {
    const dist = new URL('../../dist', import.meta.url).pathname;
    const root = new URL('../..', import.meta.url).pathname;
    const sim = simInit(join(world.dir, 'sim-clean'), dist, root);
    const r = preflight(
      [
        '--target',
        'local',
        '--workdir',
        sim.dir,
        '--setup',
        `export PATH='${sim.dir}/bin':"$PATH"`,
        '--config',
        sim.config!,
        '--json',
      ],
      { CPU_CLUSTER_TOKEN: SENTINEL },
      world.dir,
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.json.checks.filter((c: CheckResult) => c.result === 'error')).toEqual([]);
    expect(check(r.json, 'model')).toMatchObject({
      result: 'ok',
      seen: `${sim.modelDir} has config.json (Qwen3VLForConditionalGeneration)`,
    });
    expect(check(r.json, 'dataset:train')).toMatchObject({
      result: 'ok',
      seen: `${sim.trainDataset}: 2048 lines ÷ batch_size 32 = 64 steps per epoch; × 10 epochs = 640 steps`,
    });
    expect(check(r.json, 'gpus').result).toBe('ok');
    expect(check(r.json, 'gpu-memory')).toMatchObject({ result: 'ok', seen: 'all 8 GPUs free' });
  });

  it('exits 2 with --json when a check fails', () => {
    const r = cli(['--target', 'local'], ['--json', `actor.path=${world.dir}/nope`]);
    expect(r.status).toBe(2);
    expect(r.json.ok).toBe(false);
    expect(check(r.json, 'model').result).toBe('error');
  });

  it('runs over ssh too', () => {
    const r = cli(['--target', sshd.alias, '-F', sshd.sshConfigFile], ['--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.json.target).toBe(sshd.alias);
  });

  it('bad input: config errors exit 2 before touching the target; an unreachable host says which', () => {
    const r = cli(['--target', 'local'], ['rollout.consumer_batch_size=100']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('nothing was checked on the target');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const u = preflight(
      ['--target', 'nobody@127.0.0.1:1', '--workdir', '/x', '--config', CONFIG, ...world.overrides],
      {},
      world.dir,
    );
    expect(u.status).toBe(4);
    expect(u.stderr).toMatch(/^awrl-tui: cannot connect to nobody@127\.0\.0\.1:1: cannot reach/);
    expect(u.stderr).not.toMatch(/\n\s+at /);
    const m = preflight(['--config', CONFIG], {}, world.dir);
    expect(m.status).toBe(2);
    expect(m.stderr).toContain('preflight needs --target');
  });
});
