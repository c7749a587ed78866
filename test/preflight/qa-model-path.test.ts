// actor.path written RELATIVE (`models/qwen3-vl`) looks exactly like a Hub id (`Qwen/Qwen3-VL-8B-Instruct`):
// the config check cannot tell them apart, the target can. The trainer runs in the workdir, so
// pre-flight looks for the path there: a directory that exists is a local model (no Hub warning),
// nothing there means the trainer would read it as a Hub id (the hub-model-path warning, not an error:
// the trainer would download it). Pure cases first, then over a real sshd.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateConfig, looksLikeHubId } from '../../src/config/index.js';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { resolveTarget } from '../../src/runs/index.js';
import {
  evaluatePreflight,
  hasErrors,
  runPreflightReport,
  unsettledDiagnostics,
  type CheckResult,
} from '../../src/preflight/index.js';
import { startSshd, type SshdHandle } from '../harness/sshd.js';
import { facts, input, resolved } from './synth.js';
import { CONFIG, makeWorld, type World } from './world.js';

const modelCheck = (checks: CheckResult[]): CheckResult => checks.find((c) => c.id === 'model')!;
const absent = { exists: false, isDir: false, configJson: null, safetensorsBytes: null };

describe('model check: relative path vs Hub id (pure)', () => {
  it('the config engine cannot tell them apart: both look like a Hub id', () => {
    expect(looksLikeHubId('models/qwen3-vl')).toBe(true);
    expect(looksLikeHubId('Qwen/Qwen3-VL-8B-Instruct')).toBe(true);
    expect(looksLikeHubId('/models/Qwen3-VL-8B-Instruct')).toBe(false);
    expect(looksLikeHubId('./models/qwen3-vl')).toBe(false);
  });

  it('a relative path that exists under the workdir is a local model: ok, and says where it is', () => {
    const c = modelCheck(
      evaluatePreflight(
        input({
          resolved: resolved({ 'actor.path': 'models/qwen3-vl' }),
          facts: facts({
            model: {
              path: 'models/qwen3-vl',
              exists: true,
              isDir: true,
              configJson: '{"architectures":["Qwen3VLForConditionalGeneration"]}',
              safetensorsBytes: null,
            },
          }),
        }),
      ),
    );
    expect(c).toEqual({
      id: 'model',
      result: 'ok',
      seen: 'models/qwen3-vl (under /home/alice/webgym) has config.json (Qwen3VLForConditionalGeneration)',
      todo: '',
    });
  });

  it('a Hub-looking id with nothing at that path is the hub-model-path WARNING, not an error', () => {
    const checks = evaluatePreflight(
      input({
        resolved: resolved({ 'actor.path': 'Qwen/Qwen3-VL-8B-Instruct' }),
        facts: facts({ model: { path: 'Qwen/Qwen3-VL-8B-Instruct', ...absent } }),
      }),
    );
    const c = modelCheck(checks);
    expect(c.result).toBe('warning');
    expect(c.seen).toBe(
      "actor.path 'Qwen/Qwen3-VL-8B-Instruct' is a Hub id: no such directory under /home/alice/webgym on gpu-head",
    );
    expect(c.todo).toContain('huggingface-cli download Qwen/Qwen3-VL-8B-Instruct');
    expect(hasErrors(checks)).toBe(false);
  });

  it('a missing absolute or ./ path stays an error (nothing to download it from)', () => {
    for (const p of ['/models/missing', './models/missing']) {
      const c = modelCheck(
        evaluatePreflight(
          input({ resolved: resolved({ 'actor.path': p }), facts: facts({ model: { path: p, ...absent } }) }),
        ),
      );
      expect(c.result).toBe('error');
    }
  });
});

let sshd: SshdHandle;
let world: World;
let transport: Transport;

beforeAll(async () => {
  sshd = await startSshd();
  world = makeWorld();
  transport = await openTransport(sshd.alias, { sshConfigFile: sshd.sshConfigFile });
  // A model directory inside the checkout, named relative to it.
  const rel = join(world.workdir, 'models', 'qwen3-vl');
  mkdirSync(rel, { recursive: true });
  writeFileSync(join(rel, 'config.json'), JSON.stringify({ architectures: ['Qwen3VLForConditionalGeneration'] }));
});

afterAll(async () => {
  await transport?.close();
  await sshd?.stop();
  world?.remove();
});

async function viaSsh(
  overrides: string[],
  setup = world.setup,
): Promise<{ checks: CheckResult[]; configWarnings: string[] }> {
  const ev = evaluateConfig({
    fileName: CONFIG,
    text: readFileSync(CONFIG, 'utf8'),
    overrides: [...world.overrides, ...overrides],
    envNames: ['CPU_CLUSTER_TOKEN'],
  });
  expect(ev.hasErrors).toBe(false);
  const target = resolveTarget(
    { target: sshd.alias, sshConfigFile: sshd.sshConfigFile, workdir: world.workdir, setup },
    {},
  );
  if (typeof target === 'string') throw new Error(target);
  const { checks } = await runPreflightReport(transport, { evaluation: ev, target, envNames: ['CPU_CLUSTER_TOKEN'] });
  return { checks, configWarnings: ev.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.code) };
}

describe('model check over a real sshd', () => {
  it('actor.path=models/qwen3-vl (a directory under the workdir): config warns, pre-flight settles it as a local model', async () => {
    const { checks, configWarnings } = await viaSsh(['actor.path=models/qwen3-vl']);
    expect(configWarnings).toContain('hub-model-path');
    expect(modelCheck(checks)).toEqual({
      id: 'model',
      result: 'ok',
      seen: `models/qwen3-vl (under ${world.workdir}) has config.json (Qwen3VLForConditionalGeneration)`,
      todo: '',
    });
  });

  it('actor.path=Qwen/Qwen3-VL-8B-Instruct (nothing there on the target): the Hub warning, no error', async () => {
    const { checks } = await viaSsh(['actor.path=Qwen/Qwen3-VL-8B-Instruct']);
    const c = modelCheck(checks);
    expect(c.result).toBe('warning');
    expect(c.seen).toMatch(
      new RegExp(`^actor.path 'Qwen/Qwen3-VL-8B-Instruct' is a Hub id: no such directory under ${world.workdir} on `),
    );
    expect(checks.filter((x) => x.result === 'error')).toEqual([]);
  });

  it('a setup line relative to the workdir runs there, as a direct launch runs it', async () => {
    writeFileSync(join(world.workdir, 'env.sh'), `${world.setup}\n`);
    const { checks } = await viaSsh([], 'source ./env.sh');
    expect(checks.find((c) => c.id === 'setup')).toMatchObject({ result: 'ok' });
    // The fake nvidia-smi came onto PATH through env.sh: the GPUs were seen.
    expect(checks.find((c) => c.id === 'gpus')).toMatchObject({ result: 'ok' });
  });
});

describe('unsettledDiagnostics: the config warning a passing model check settles', () => {
  const hub = { code: 'hub-model-path', key: 'actor.path', severity: 'warning' as const, message: '' };
  const other = { code: 'sglang-vlm-cache', key: 'actor.scheduling_spec.0', severity: 'warning' as const, message: '' };
  it('drops hub-model-path when the model check is ok, keeps everything else', () => {
    const checks = evaluatePreflight(
      input({
        resolved: resolved({ 'actor.path': 'models/qwen3-vl' }),
        facts: facts({
          model: { path: 'models/qwen3-vl', exists: true, isDir: true, configJson: '{}', safetensorsBytes: null },
        }),
      }),
    );
    expect(unsettledDiagnostics([hub, other], checks)).toEqual([other]);
  });
  it('keeps it when the target has nothing there', () => {
    const checks = evaluatePreflight(
      input({
        resolved: resolved({ 'actor.path': 'Qwen/Qwen3-VL-8B-Instruct' }),
        facts: facts({ model: { path: 'Qwen/Qwen3-VL-8B-Instruct', ...absent } }),
      }),
    );
    expect(unsettledDiagnostics([hub, other], checks)).toEqual([hub, other]);
  });
});

describe('datasets named relative to the workdir', () => {
  it('a missing relative dataset says where it was looked for', () => {
    const c = evaluatePreflight(
      input({
        resolved: resolved({ 'train_dataset.path': 'data/webgym_tasks/train.jsonl' }),
        facts: facts({ datasets: [{ path: 'data/webgym_tasks/train.jsonl', exists: false, lines: null }] }),
      }),
    ).find((x) => x.id === 'dataset:train')!;
    expect(c).toMatchObject({
      result: 'error',
      seen: 'train_dataset.path data/webgym_tasks/train.jsonl (under /home/alice/webgym) does not exist on gpu-head',
    });
  });
});
