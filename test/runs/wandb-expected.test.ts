// The wandb run a config makes, before wandb prints it (src/runs/wandb-expected.ts, as AReaL's
// StatsLogger.init makes it): the page computed from the config and the id file the trainer keeps in
// {fileroot}/wandb_id is the page the banner names (the simulator prints it as stats_logger.py
// does); what cannot be known before the banner (an unset entity, a suffix not written yet, an
// offline run's dir) is said, never guessed. Then on the one path: a watch of a run whose log has no
// banner yet emits the page as a `wandb` record `from: 'config'`, and `runs --json` gives it as
// `wandbUrl` with `wandbFrom: 'config'`.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evaluateConfig } from '../../src/config/index.js';
import { LocalTransport } from '../../src/remote/local.js';
import { expectedWandb, wandbConfigFacts, wandbIdFile } from '../../src/runs/wandb-expected.js';
import { readRunFacts } from '../../src/runs/run-facts-eval.js';
import { createRunWatch } from '../../src/watch/create-run-watch.js';
import type { WatchOutput } from '../../src/watch/watch-output.js';
import { localTarget } from '../harness/local-run.js';
import { waitFor } from '../harness/wait.js';
import { simWorkspace, CONFIG_LOCAL } from '../sim/helpers.js';
import { parseRunRecord } from '../../src/runs/run-record.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;

const dir = mkdtempSync(join(tmpdir(), 'awrl-wandb-expected-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EXP = 'qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch32-k8-lr5e-06';
const TRIAL = 'intuition-model';

function factsOf(overrides: string[], fileroot = '/fr') {
  const text = readFileSync(CONFIG_LOCAL, 'utf8');
  const ev = evaluateConfig({
    fileName: CONFIG_LOCAL,
    text,
    overrides: [`cluster.fileroot=${fileroot}`, ...overrides],
  });
  return wandbConfigFacts(ev.resolved, { experiment: ev.experimentName, trial: ev.trialName })!;
}

describe('the wandb run a config makes', () => {
  it('is the page the banner names: the config, and the suffix StatsLogger wrote to {fileroot}/wandb_id', async () => {
    const ws = simWorkspace(CONFIG_LOCAL, ['total_train_epochs=1', '+total_train_steps=1']);
    try {
      expect(await ws.run(['stats_logger.wandb.mode=online'], { WANDB_API_KEY: 'unused' })).toBe(0);
      const banner = /View run at (\S+)/.exec(ws.stdout)![1];
      const f = factsOf(['stats_logger.wandb.mode=online'], ws.fileroot);
      expect(wandbIdFile(f)).toBe(`${ws.fileroot}/wandb_id/${EXP}__${TRIAL}`);
      const suffix = readFileSync(wandbIdFile(f), 'utf8');
      // time.strftime("%Y_%m_%d_%H_%M_%S"), written without a newline.
      expect(suffix).toMatch(/^\d{4}(_\d\d){5}$/);
      const w = expectedWandb(f, suffix);
      expect(w).toMatchObject({ mode: 'online', id: `${EXP}_${TRIAL}_${suffix}`, project: 'rl', entity: 'webgym' });
      expect(w!.url).toBe(banner);
      expect(w!.unknown).toEqual(["the host, if the trainer's environment sets WANDB_BASE_URL (otherwise wandb.ai)"]);
    } finally {
      ws.cleanup();
    }
  });

  it('says what it cannot know: the suffix before the trainer wrote it, an unset entity, an offline dir', () => {
    const before = expectedWandb(factsOf(['stats_logger.wandb.mode=online']), null)!;
    expect(before.id).toBeNull();
    expect(before.url).toBeNull();
    expect(before.unknown[0]).toBe(
      `the run id: its suffix is written to /fr/wandb_id/${EXP}__${TRIAL} when the trainer starts`,
    );
    const noEntity = expectedWandb(
      factsOf(['stats_logger.wandb.mode=online', 'stats_logger.wandb.entity=null']),
      '2026_05_25_12_00_00\n',
    )!;
    expect(noEntity.id).toBe(`${EXP}_${TRIAL}_2026_05_25_12_00_00`);
    expect(noEntity.url).toBeNull();
    expect(noEntity.unknown).toContain(
      "the entity: wandb.entity is unset, so it is the logged-in user's default (wandb's banner names it)",
    );
    const offline = expectedWandb(factsOf(['stats_logger.wandb.mode=offline']), '2026_05_25_12_00_00')!;
    expect(offline).toMatchObject({ mode: 'offline', url: null });
    expect(offline.unknown[0]).toMatch(/^the local run dir/);
    expect(expectedWandb(factsOf([]), '2026_05_25_12_00_00')).toBeNull();
  });

  it('with the default id_suffix (train) the id needs no file; a host from the config is its app', () => {
    const f = factsOf([
      'stats_logger.wandb.mode=online',
      'stats_logger.wandb.id_suffix=train',
      '++stats_logger.wandb.wandb_base_url=https://api.wandb.example.org/',
    ]);
    const w = expectedWandb(f, null)!;
    expect(w.idFile).toBeNull();
    expect(w.url).toBe(`https://wandb.example.org/webgym/rl/runs/${EXP}_${TRIAL}_train`);
    expect(w.unknown).toEqual([]);
  });
});

describe('before the banner, on the one path', () => {
  // A launched run whose trainer has started (the id file is written) but whose log has no banner yet.
  const fileroot = join(dir, 'fr');
  const runDir = join(dir, '.awrl', 'runs', 'r1');
  mkdirSync(runDir, { recursive: true });
  mkdirSync(join(fileroot, 'wandb_id'), { recursive: true });
  writeFileSync(join(fileroot, 'wandb_id', `${EXP}__${TRIAL}`), '2026_05_25_12_00_00');
  const record = {
    version: 1,
    runId: 'r1',
    experiment: EXP,
    trial: TRIAL,
    target: 'local',
    workdir: dir,
    runDir,
    backend: 'direct',
    argv: ['python3', 'webgym/train.py', '--config', CONFIG_LOCAL, `cluster.fileroot=${fileroot}`],
    secretNames: [],
    createdAt: '2026-05-25T12:00:00.000Z',
    attempts: [{ n: 1, reason: 'launch', startedAt: '2026-05-25T12:00:00.000Z' }],
  };
  writeFileSync(join(runDir, 'run.json'), JSON.stringify(record) + '\n');
  writeFileSync(join(runDir, 'stdout.log'), '');
  writeFileSync(join(runDir, 'exit.code'), '0\n');
  // The same run launched with wandb online.
  const runDir2 = join(dir, '.awrl', 'runs', 'r2');
  mkdirSync(runDir2, { recursive: true });
  const record2 = { ...record, runId: 'r2', runDir: runDir2, argv: [...record.argv, 'stats_logger.wandb.mode=online'] };
  writeFileSync(join(runDir2, 'run.json'), JSON.stringify(record2) + '\n');
  writeFileSync(join(runDir2, 'stdout.log'), '');
  writeFileSync(join(runDir2, 'exit.code'), '0\n');
  const url = `https://wandb.ai/webgym/rl/runs/${EXP}_${TRIAL}_2026_05_25_12_00_00`;

  it("runs --json: wandbUrl from the config before the banner (wandbFrom 'config'); none for wandb disabled", () => {
    const runs = (id: string) =>
      JSON.parse(
        execFileSync(process.execPath, [BIN, 'runs', id, '--target', 'local', '--workdir', dir, '--json'], {
          encoding: 'utf8',
          env: { ...process.env, XDG_CONFIG_HOME: join(dir, 'no-profiles') },
        }),
      )[0];
    expect(runs('r2')).toMatchObject({
      wandbUrl: url,
      wandbFrom: 'config',
      wandbExpected: { mode: 'online', id: `${EXP}_${TRIAL}_2026_05_25_12_00_00`, entity: 'webgym', project: 'rl' },
    });
    expect(runs('r1')).toMatchObject({ wandbUrl: null, wandbFrom: null });
  });

  it('the watch emits the page as a wandb record from the config (disabled in the config: none)', async () => {
    const transport = new LocalTransport();
    const rec = parseRunRecord(JSON.stringify(record))!;
    // The example config has wandb disabled: nothing to announce.
    expect((await readRunFacts(transport, rec)).wandb).toBeUndefined();
    const online = { ...rec, argv: [...rec.argv, 'stats_logger.wandb.mode=online'] };
    const facts = readRunFacts(transport, online);
    const outs: WatchOutput[] = [];
    const watch = createRunWatch({
      transport,
      target: localTarget(dir),
      runId: 'r1',
      logPath: join(runDir, 'stdout.log'),
      whenEnded: 'stop',
      facts,
    });
    watch.on((o) => outs.push(o));
    watch.start();
    try {
      await waitFor(() => outs.some((o) => o.type === 'record' && o.record.type === 'wandb'), {
        timeoutMs: 20_000,
        what: 'the wandb record',
      });
      const w = outs.find((o) => o.type === 'record' && o.record.type === 'wandb');
      expect(w).toMatchObject({ record: { type: 'wandb', url, time: null, from: 'config' } });
    } finally {
      watch.close();
      await transport.close();
    }
  });
});
