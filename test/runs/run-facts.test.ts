// The facts the alert rules take from a run's config (its staleness budget, batch size, recover
// interval), as `follow` and the cockpit get them: what the config engine resolves, whatever else
// its evaluation says about launching from HERE (a secret missing on the laptop that follows says
// nothing about the run's budget); unknown where the config gives no number.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateConfig } from '../../src/config/index.js';
import { factsOf, launchedConfigOf } from '../../src/runs/run-facts.js';
import { launchedFacts, readRunFacts } from '../../src/runs/run-facts-eval.js';
import { LocalTransport } from '../../src/remote/local.js';
import type { RunRecord } from '../../src/runs/run-record.js';
import { MetricsStore } from '../../src/metrics/store.js';
import { rlView, type RunFacts } from '../../src/session/run-records.js';
import { parseAll, stepRecords } from '../trainer-log/helpers.js';

const FILE = new URL('../../configs/webgym_8x8h100_grpo_inst_nokl.yaml', import.meta.url).pathname;
const text = readFileSync(FILE, 'utf8');

const config = (overrides: string[] = [], body = text) => ({ fileName: FILE, text: body, overrides, envNames: [] });

describe('launchedFacts', () => {
  it('tells what the config engine resolves, overrides included', () => {
    expect(launchedFacts(config())).toEqual({
      consumerBatchSize: 128,
      maxHeadOffpolicyness: 2,
      recoverFreqSecs: 1200,
      behavImpWeightCap: 5,
    });
    const overrides = ['rollout.max_head_offpolicyness=7', 'recover.freq_secs=900'];
    expect(launchedFacts(config(overrides))).toEqual({
      consumerBatchSize: 128,
      maxHeadOffpolicyness: 7,
      recoverFreqSecs: 900,
      behavImpWeightCap: 5,
    });
    expect(launchedFacts(config(overrides))).toEqual(factsOf(evaluateConfig(config(overrides))));
  });

  it('knows each value whatever else the evaluation says, and none of a file that does not read', () => {
    // This machine has no WANDB_API_KEY: an error for a launch from here, nothing about the budget.
    expect(process.env.WANDB_API_KEY).toBeUndefined();
    expect(evaluateConfig(config()).hasErrors).toBe(true);
    expect(launchedFacts(config()).maxHeadOffpolicyness).toBe(2);
    expect(launchedFacts(config([], 'rollout: [unclosed\n'))).toEqual({});
    const typo = launchedFacts(config(['rollout.max_head_offpolicyness=many']));
    expect(typo).toEqual({ consumerBatchSize: 128, recoverFreqSecs: 1200, behavImpWeightCap: 5 });
    expect(typo.maxHeadOffpolicyness).toBeUndefined();
  });

  it('tells the behaviour-weight cap: its number, null where the config sets none, unknown otherwise', () => {
    expect(launchedFacts(config(['actor.behav_imp_weight_cap=7.5'])).behavImpWeightCap).toBe(7.5);
    expect(launchedFacts(config(['actor.behav_imp_weight_cap=null'])).behavImpWeightCap).toBeNull();
    const unset = text.replace(/^ {2}behav_imp_weight_cap: 5\.0\n/m, '');
    expect(unset).not.toContain('behav_imp_weight_cap');
    expect(launchedFacts(config([], unset)).behavImpWeightCap).toBeNull();
    expect(launchedFacts(config([], 'rollout: [unclosed\n')).behavImpWeightCap).toBeUndefined();
    expect(factsOf(null).behavImpWeightCap).toBeUndefined();
  });

  it('gives the RL health screen the cap: shown beside the weight, and the no-cap spike rule on it', () => {
    const store = new MetricsStore();
    const line = stepRecords('20260525-12:00:00.000', 1, [['ppo_actor/update/behave_imp_weight/max', '1.4650e+01']]);
    for (const ev of parseAll(line + '\n')) store.ingest(ev);
    const weight = (facts: RunFacts) =>
      rlView(store, facts)
        .groups.flatMap((g) => g.figures)
        .find((f) => f.label === 'behaviour weight max')?.text;
    const capped = launchedFacts(config());
    expect(weight(capped)).toBe('14.65 (cap 5)');
    expect(rlView(store, capped).warnings).toEqual([]);
    const none = launchedFacts(config(['actor.behav_imp_weight_cap=null']));
    expect(weight(none)).toBe('14.65 (no cap set)');
    expect(rlView(store, none).warnings.map((w) => w.title)).toEqual([
      'behaviour importance weight max 14.65 with no cap',
    ]);
    expect(weight({})).toBe('14.65 (cap: config not known here)');
  });

  it('reads the config and overrides from the run record, and nothing without --config', () => {
    const record = (argv: string[]) => ({ argv }) as unknown as RunRecord;
    expect(launchedConfigOf(record(['python3', 'webgym/train.py', '--config', '/r/c.yaml', 'a=1']))).toEqual({
      configPath: '/r/c.yaml',
      overrides: ['a=1'],
    });
    expect(launchedConfigOf(record(['python3', 'webgym/train.py']))).toBeNull();
    expect(launchedConfigOf(record(['python3', 'webgym/train.py', '--config']))).toBeNull();
  });

  it("reads a run's config where its record says, with its overrides; nothing without one", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-run-facts-'));
    try {
      const path = join(dir, 'config.yaml');
      writeFileSync(path, text);
      const t = new LocalTransport();
      const record = (argv: string[]) => ({ argv }) as unknown as RunRecord;
      const argv = ['python3', 'webgym/train.py', '--config', path, 'rollout.max_head_offpolicyness=5'];
      expect(await readRunFacts(t, record(argv))).toEqual({
        consumerBatchSize: 128,
        maxHeadOffpolicyness: 5,
        recoverFreqSecs: 1200,
        behavImpWeightCap: 5,
        // wandb online in this config; its id suffix is not written yet (no trainer has started).
        wandb: expect.objectContaining({ mode: 'online', entity: 'webgym', project: 'rl', id: null, url: null }),
      });
      expect(await readRunFacts(t, record(['python3', 'webgym/train.py']))).toEqual({});
      await expect(readRunFacts(t, record(['python3', 'x.py', '--config', join(dir, 'gone.yaml')]))).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
