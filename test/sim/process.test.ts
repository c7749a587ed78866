// The simulator as a process, the way the cockpit meets it: `awrl-tui sim init DIR`, then
// `python3 webgym/train.py --config FILE k=v …` in DIR (the real Python running the shim), with the
// trainer's CLI errors, a config error, a stall that SIGTERM ends, and the fake nvidia-smi on PATH.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor, pidAlive } from '../harness/wait.js';
import { parseLogBytes } from '../../src/trainer-log/index.js';
import { parseSmiCsv } from '../../src/gpu/index.js';
import type { SimState } from '../../src/sim/state.js';
import { writeWebgymTasks, SIM_TRAIN_TASKS } from '../../src/sim/init.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const PY = '/usr/bin/python3';
let dir: string;
const children: ChildProcess[] = [];

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  USER: 'simuser',
  LOGNAME: 'simuser',
  AWRL_SIM_SPEED: 'instant',
  AWRL_SIM_DATASET_SIZE: '96',
  ...extra,
});
const trainer = (args: string[], extra: Record<string, string> = {}) =>
  spawnSync(PY, ['webgym/train.py', ...args], { cwd: dir, env: env(extra), encoding: 'utf8', timeout: 60_000 });
const logDir = (): string => {
  const base = join(dir, 'areal-fileroot', 'logs', 'simuser');
  const exp = readdirSync(base)[0];
  return join(base, exp, readdirSync(join(base, exp))[0]);
};
const smi = (): ReturnType<typeof parseSmiCsv> => {
  const r = spawnSync(
    'nvidia-smi',
    ['--query-gpu=index,name,memory.used,memory.total,utilization.gpu', '--format=csv,noheader,nounits'],
    {
      env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
      encoding: 'utf8',
    },
  );
  expect(r.status).toBe(0);
  return parseSmiCsv(r.stdout, { fields: ['index', 'name', 'memory.used', 'memory.total', 'utilization.gpu'] });
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'awrl-siminit-'));
  const r = spawnSync(process.execPath, [BIN, 'sim', 'init', dir], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  // The train file's line count sizes an epoch: 96 tasks at batch 32 = 3 steps per epoch.
  expect(readFileSync(join(dir, 'data', 'webgym_tasks', 'train.jsonl'), 'utf8').split('\n')).toHaveLength(
    SIM_TRAIN_TASKS + 1,
  );
  writeWebgymTasks(join(dir, 'data', 'webgym_tasks', 'train.jsonl'), 96);
});
afterAll(() => {
  for (const c of children) if (c.pid && pidAlive(c.pid)) process.kill(c.pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('sim init', () => {
  it('writes an executable webgym/train.py, bin/nvidia-smi and a runnable config', () => {
    for (const f of ['webgym/train.py', 'bin/nvidia-smi']) expect(statSync(join(dir, f)).mode & 0o111).not.toBe(0);
    const yaml = readFileSync(join(dir, 'configs', 'sim_local.yaml'), 'utf8');
    expect(yaml).toContain(join(dir, 'areal-fileroot'));
    const model = join(dir, 'models', 'Qwen3-VL-8B-Instruct');
    expect(yaml).toContain(`path: ${model}\n`);
    expect(yaml).toContain(`base_model_checkpoint: ${model}\n`);
    expect(yaml).toContain(`path: ${join(dir, 'data', 'webgym_tasks', 'train.jsonl')}\n`);
    expect(yaml).toContain(`path: ${join(dir, 'data', 'webgym_tasks', 'test.jsonl')}\n`);
    expect(yaml).not.toMatch(/: \/path\/to\//);
    expect(JSON.parse(readFileSync(join(model, 'config.json'), 'utf8')).architectures).toEqual([
      'Qwen3VLForConditionalGeneration',
    ]);
    for (const line of readFileSync(join(dir, 'data', 'webgym_tasks', 'test.jsonl'), 'utf8')
      .trim()
      .split('\n'))
      expect(JSON.parse(line)).toHaveProperty('task_id');
  });
});

describe('python3 webgym/train.py (the shim)', () => {
  it('rejects an unknown --flag the argparse way (usage, exit 2) and a missing --config', () => {
    const a = trainer(['--config', 'configs/sim_local.yaml', '--resume']);
    expect(a.status).toBe(2);
    expect(a.stderr).toBe('usage: train.py [-h] --config CONFIG\ntrain.py: error: unrecognized arguments: --resume\n');
    const b = trainer(['seed=3']);
    expect(b.status).toBe(2);
    expect(b.stderr).toContain('the following arguments are required: --config');
  });

  it('a config the engine rejects exits 1 with the position and the trainer-like message, no stack', () => {
    const r = trainer(['--config', 'configs/sim_local.yaml', 'rollout.consumer_batch_size=30']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/override \d+ 'rollout\.consumer_batch_size=30'.*error/);
    expect(r.stderr).toMatch(/ValueError: invalid experiment config/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'areal-fileroot', 'logs'))).toBe(false);
  });

  it('runs to the end: logs, config.yaml, recover info, wandb id', () => {
    const r = trainer([
      '--config',
      'configs/sim_local.yaml',
      'total_train_epochs=2',
      'recover.freq_steps=1',
      'trial_name=full',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const ld = logDir().replace(/[^/]+$/, 'full');
    for (const f of ['main.log', 'merged.log', 'config.yaml', 'actor.log', 'rollout.log'])
      expect(existsSync(join(ld, f)), f).toBe(true);
    const saved = readFileSync(join(ld, 'config.yaml'), 'utf8');
    expect(saved).toMatch(/^trial_name: full$/m);
    expect(saved).toMatch(new RegExp(`^experiment_name: ${ld.split('/').at(-2)}$`, 'm')); // 'auto' resolved
    const events = parseLogBytes(readFileSync(join(ld, 'main.log')));
    expect(events.filter((e) => e.type === 'step')).toHaveLength(6);
    expect(events.at(-1)?.type).toBe('finished');
    const ck = ld.replace('/logs/', '/checkpoints/');
    expect(readFileSync(join(ck, 'recover_info', 'step_info.json'), 'utf8')).toBe(
      '{\n    "epoch": 1,\n    "epoch_step": 2,\n    "global_step": 5,\n    "steps_per_epoch": 3\n}',
    );
    expect(readdirSync(join(dir, 'areal-fileroot', 'wandb_id')).some((f) => f.endsWith('__full'))).toBe(true);
  });

  it('a stall stops progress in its phase (seen by nvidia-smi); SIGTERM ends it cleanly with a non-zero code', async () => {
    const child = spawn(PY, ['webgym/train.py', '--config', 'configs/sim_local.yaml', 'trial_name=stall'], {
      cwd: dir,
      env: env({ AWRL_SIM_FAULT: 'stall:ppo_update@2' }),
      stdio: 'ignore',
    });
    children.push(child);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const statePath = join(dir, 'state', 'state.json');
    const st = await waitFor(
      () => {
        const s = JSON.parse(readFileSync(statePath, 'utf8')) as SimState;
        return s.phase === 'ppo_update' && s.step === 2 && s.pid === child.pid ? s : null;
      },
      { what: 'the simulated trainer to reach the stalled phase', timeoutMs: 20_000 },
    );
    expect(st.actorGpus).toBe(4);
    const mainLog = join(logDir().replace(/[^/]+$/, 'stall'), 'main.log');
    const size = statSync(mainLog).size;
    // GPUs 4..7 hold the actor: in the PPO update they carry the most memory.
    const during = smi().rows.map((r) => r['memory.used'] as number);
    expect(during.slice(4).every((m) => m > 70_000)).toBe(true);
    // No progress while stalled (an instant-pace run would finish in well under the nvidia-smi call).
    expect(statSync(mainLog).size).toBe(size);
    expect((JSON.parse(readFileSync(statePath, 'utf8')) as SimState).phase).toBe('ppo_update');
    process.kill(child.pid!, 'SIGTERM');
    expect(await exited).toBe(143);
    const events = parseLogBytes(readFileSync(join(logDir().replace(/[^/]+$/, 'stall'), 'main.log')));
    expect(events.filter((e) => e.type === 'step')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'warning', message: expect.stringContaining('SIGTERM') });
    expect(smi().rows.map((r) => r['memory.used'])).toEqual(Array(8).fill(0));
  });
});

describe('the dataset sizes an epoch', () => {
  it("steps per epoch come from the train file's line count; AWRL_SIM_DATASET_SIZE only when there is no file", () => {
    const small = join(dir, 'data', 'webgym_tasks', 'small.jsonl');
    writeWebgymTasks(small, 64);
    const steps = (trial: string, path: string) => {
      const r = trainer([
        '--config',
        'configs/sim_local.yaml',
        'total_train_epochs=1',
        `train_dataset.path=${path}`,
        `trial_name=${trial}`,
      ]);
      expect(r.status, r.stderr).toBe(0);
      return parseLogBytes(readFileSync(join(logDir().replace(/[^/]+$/, trial), 'main.log'))).filter(
        (e) => e.type === 'step',
      ).length;
    };
    expect(steps('from-file', small)).toBe(2); // 64 lines, although AWRL_SIM_DATASET_SIZE=96
    expect(steps('from-env', join(dir, 'data', 'webgym_tasks', 'no-such.jsonl'))).toBe(3); // 96 // 32
  });
});
