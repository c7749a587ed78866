// runs --json's wandbUrl: the list script finds wandb's banner at the start of each run's stdout.log
// (here as the simulator prints it, online and offline) on a real shell, through LocalTransport.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/remote/local.js';
import { listRuns } from '../../src/runs/list.js';
import type { Target } from '../../src/runs/targets.js';
import { simWorkspace, CONFIG_LOCAL } from '../sim/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'awrl-wandb-url-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(id: string, stdout: string): void {
  const d = join(dir, '.awrl', 'runs', id);
  mkdirSync(d, { recursive: true });
  const record = {
    version: 1,
    runId: id,
    experiment: 'e',
    trial: 't',
    target: 'local',
    workdir: dir,
    runDir: d,
    backend: 'direct',
    argv: ['python3', 'webgym/train.py'],
    secretNames: [],
    createdAt: `2026-11-29T10:00:0${id.slice(-1)}.000Z`,
    attempts: [{ n: 1, reason: 'launch', startedAt: '2026-11-29T10:00:00.000Z', pid: 999999 }],
  };
  writeFileSync(join(d, 'run.json'), JSON.stringify(record) + '\n');
  writeFileSync(join(d, 'stdout.log'), stdout);
  writeFileSync(join(d, 'exit.code'), '0\n');
}

async function simStdout(mode: string): Promise<string> {
  const ws = simWorkspace(CONFIG_LOCAL, ['total_train_epochs=1', '+total_train_steps=1']);
  try {
    // online needs a key in the environment (the config check); the simulator never uses it.
    expect(await ws.run([`stats_logger.wandb.mode=${mode}`], { WANDB_API_KEY: 'unused' })).toBe(0);
    return ws.stdout;
  } finally {
    ws.cleanup();
  }
}

describe('runs: the wandb run of each run', () => {
  it('gives the URL of an online run, the dir of an offline one, and nothing when the log has none', async () => {
    run('r1', await simStdout('online'));
    run('r2', await simStdout('offline'));
    run('r3', await simStdout('disabled'));
    const runs = await listRuns(new LocalTransport(), { name: 'local', workdir: dir } as Target);
    const by = new Map(runs.map((r) => [r.runId, r.wandb]));
    expect(by.get('r1')).toEqual({
      url: expect.stringMatching(
        /^https:\/\/wandb\.ai\/webgym\/rl\/runs\/qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch32-k8-lr5e-06_intuition-model_\d{4}(_\d\d){5}$/,
      ),
    });
    expect(by.get('r2')).toEqual({ url: null, offlineDir: expect.stringMatching(/\/wandb\/offline-run-\d{8}_\d{6}-/) });
    expect(by.get('r3')).toBeUndefined();
  });
});
