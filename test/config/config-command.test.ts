// `awrl-tui config …` as a user runs it: the built CLI in a child process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mutate, posOf, REFERENCE, REFERENCE_PATH } from './helpers.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'awrl-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}) {
  const base = { ...process.env };
  delete base.WANDB_API_KEY;
  let r = spawnSync(process.execPath, [BIN, 'config', ...args], { encoding: 'utf8', env: { ...base, ...env } });
  // dist/ is shared with other builds of the tree: a module caught half-written by a concurrent
  // `tsc` fails to link. Run again (bounded) until the build is whole.
  for (let i = 0; i < 5 && r.status === 70 && /internal error/.test(r.stderr); i++)
    r = spawnSync(process.execPath, [BIN, 'config', ...args], { encoding: 'utf8', env: { ...base, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at |internal error/);

describe('config check', () => {
  it('reports FILE:LINE:COL: error CODE message and exits 2 when there are errors', () => {
    const r = cli(['check', REFERENCE_PATH]);
    expect(r.code).toBe(2);
    const p = posOf(REFERENCE, 'mode: online');
    expect(r.out).toBe(
      `${REFERENCE_PATH}:${p.line}:${p.col}: error wandb-api-key stats_logger.wandb.mode is online but WANDB_API_KEY is not set; export WANDB_API_KEY, or set stats_logger.wandb.mode: disabled\n`,
    );
  });
  it('exits 0 with no errors, and never prints a secret value', () => {
    const r = cli(['check', REFERENCE_PATH], { WANDB_API_KEY: 'sk-supersecret-123' });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.out + r.err).not.toContain('sk-supersecret-123');
  });
  it('reports an override as override N', () => {
    const r = cli(['check', REFERENCE_PATH, 'seed=2', 'rollout.consumer_batch_size=120'], { WANDB_API_KEY: 'x' });
    expect(r.code).toBe(2);
    expect(r.out).toContain(
      "override 2 'rollout.consumer_batch_size=120': error batch-divisibility consumer_batch_size=120 is not divisible by LCM(n_samples=8, dp_size=16)=16. Valid values near 120: 112, 128.",
    );
  });
  it('--json gives the diagnostics as data', () => {
    const f = file('warn.yaml', mutate('enable_multimodal: true', 'enable_multimodal: false'));
    const r = cli(['check', f, '--json'], { WANDB_API_KEY: 'x' });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({
      ok: true,
      errors: 0,
      warnings: 1,
      experimentName: 'qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch128-k8-lr5e-06',
    });
    expect(j.diagnostics[0]).toMatchObject({
      severity: 'warning',
      code: 'multimodal',
      line: posOf(REFERENCE, 'enable_multimodal').line,
    });
  });
  it('bad input: missing file, YAML syntax error, bad override → one clear message, exit 2, no stack', () => {
    const missing = cli(['check', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.err.trim().split('\n')).toHaveLength(1);
    expect(missing.err).toContain('nope.yaml: no such file');
    noStack(missing.err);

    const bad = file('bad.yaml', 'a: 1\nb: [1, 2\nc: 3\n');
    const syn = cli(['check', bad]);
    expect(syn.code).toBe(2);
    expect(syn.out).toMatch(
      new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: error yaml-syntax `),
    );
    noStack(syn.out + syn.err);

    const ov = cli(['show', REFERENCE_PATH, 'allocation_mode=sglang[rollout]:d4']);
    expect(ov.code).toBe(2);
    expect(ov.err).toMatch(
      /override 1 'allocation_mode=sglang\[rollout\]:d4': error override-syntax '\[' at column 23/,
    );
    noStack(ov.err);
  });
});

describe('config show / diff / argv', () => {
  it('show prints the effective YAML with comments; --resolved resolves', () => {
    const r = cli(['show', REFERENCE_PATH, 'seed=7']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('# Cap the off-policy importance weight');
    expect(r.out).toMatch(/^seed: 7 # override 1$/m);
    const res = cli(['show', REFERENCE_PATH, 'seed=7', '--resolved']);
    expect(res.out).not.toContain('${');
    expect(res.out).not.toContain('#');
    expect(res.out).toMatch(/^ {2}random_seed: 7$/m);
  });
  it('show --json is the file + overrides; --resolved --json is plain resolved JSON with numbers', () => {
    const j = JSON.parse(cli(['show', REFERENCE_PATH, '--json']).out);
    expect(j.tokenizer_path).toBe('${actor.path}');
    const r = JSON.parse(cli(['show', REFERENCE_PATH, '--resolved', '--json', 'seed=9']).out);
    expect(r.sglang.random_seed).toBe(9);
    expect(r.actor.optimizer.lr).toBe(5e-6);
    expect(r.actor.optimizer.offload).toBe(false); // a dataclass default
  });
  it('diff lists each change, including those through interpolations', () => {
    const r = cli(['diff', REFERENCE_PATH, 'seed=42', 'actor.optimizer.lr=1e-5']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toEqual([
      "~ seed: 1 -> 42  (override 1 'seed=42')",
      '~ sglang.random_seed: 1 -> 42  (through an interpolation)',
      '~ vllm.seed: 1 -> 42  (through an interpolation)',
      "~ actor.optimizer.lr: 5e-06 -> 1e-05  (override 2 'actor.optimizer.lr=1e-5')",
      '',
    ]);
  });
  it('argv prints one element per line and the experiment name', () => {
    const r = cli(
      [
        'argv',
        REFERENCE_PATH,
        'seed=42',
        "allocation_mode='sglang[rollout]:d40+fsdp[actor]:d24'",
        '--remote-config',
        '/r/config.yaml',
      ],
      { WANDB_API_KEY: 'x' },
    );
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toEqual([
      'python3',
      'webgym/train.py',
      '--config',
      '/r/config.yaml',
      '++seed=42',
      "++allocation_mode='sglang[rollout]:d40+fsdp[actor]:d24'",
      '# experiment_name: qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch128-k8-lr5e-06',
      '# trial_name: intuition-model',
      '',
    ]);
  });
  it('argv wants a remote path ending in .yaml', () => {
    const r = cli(['argv', REFERENCE_PATH, '--remote-config', '/r/config.yml'], { WANDB_API_KEY: 'x' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('must end with .yaml');
  });
  it('rejects unknown options and subcommands with exit 2', () => {
    expect(cli(['check', REFERENCE_PATH, '--frobnicate']).code).toBe(2);
    expect(cli(['explode', REFERENCE_PATH]).code).toBe(2);
    expect(cli(['check']).code).toBe(2);
  });
});

describe('config show / diff / argv with a secret in the config', () => {
  // Each secret the trainer knows, written into the YAML: printed <redacted> on its own line, the
  // error kept (stderr, exit 2), the value nowhere.
  const ENV_ANCHOR = '        WEBGYM_SKIP_IMAGE_JUDGE: "0"';
  const SECRETS: [string, string, (v: string) => string][] = [
    [
      'wandb_api_key',
      'stats_logger.wandb.wandb_api_key',
      (v) => mutate('    entity: webgym', `    entity: webgym\n    wandb_api_key: ${v}`),
    ],
    [
      'cpu_cluster_token',
      'webgym.cpu_cluster_token',
      (v) => mutate('  master_port: 8443', `  master_port: 8443\n  cpu_cluster_token: "${v}"`),
    ],
    [
      'api_key',
      'stats_logger.swanlab.api_key',
      (v) => mutate('    id_suffix: timestamp', `    id_suffix: timestamp\n  swanlab:\n    api_key: ${v}`),
    ],
    ...['WANDB_API_KEY', 'CPU_CLUSTER_TOKEN', 'GEMINI_API_KEY', 'SWANLAB_API_KEY'].map(
      (n): [string, string, (v: string) => string] => [
        n,
        `actor.scheduling_spec.0.env_vars.${n}`,
        (v) => mutate(ENV_ANCHOR, `${ENV_ANCHOR}\n        ${n}: '${v}'`),
      ],
    ),
  ];
  for (const [last, key, write] of SECRETS) {
    it(`${key}: show, show --resolved, show --json, diff, argv print <redacted> and the error`, () => {
      const value = `sk-cli-${last.length}-77aa99bb`;
      const text = write(value);
      const f = file(`secret-${last}.yaml`, text);
      const line = text.split('\n').findIndex((l) => l.includes(value)) + 1;
      const env = { WANDB_API_KEY: 'x' };
      const runs = {
        show: cli(['show', f, 'seed=3'], env),
        resolved: cli(['show', f, '--resolved'], env),
        json: cli(['show', f, '--json'], env),
        resolvedJson: cli(['show', f, '--resolved', '--json'], env),
        diff: cli(['diff', f, 'seed=3'], env),
        argv: cli(['argv', f, 'seed=3'], env),
      };
      for (const [name, r] of Object.entries(runs)) {
        expect(r.out + r.err, name).not.toContain(value);
        expect(r.code, name).toBe(2);
        expect(r.err, name).toContain(`${f}:${line}:`);
        expect(r.err, name).toContain(`error secret-in-config ${key} holds a secret`);
        noStack(r.err);
      }
      expect(runs.show.out.split('\n')[line - 1]).toMatch(new RegExp(`^\\s+${last}: <redacted>$`));
      expect(runs.show.out).toMatch(/^seed: 3 # override 1$/m);
      expect(runs.resolved.out).toMatch(new RegExp(`^\\s+${last}: <redacted>$`, 'm'));
      expect(runs.json.out).toContain(`"${last}": "<redacted>"`);
      expect(runs.resolvedJson.out).toContain(`"${last}": "<redacted>"`);
      expect(runs.diff.out).toContain("~ seed: 1 -> 3  (override 1 'seed=3')");
      expect(runs.argv.out).toContain('++seed=3\n');
    });
  }
  it('a secret given as an override: diff and argv show <redacted>, never the value', () => {
    const value = 'tok-override-5544';
    const ov = `+webgym.cpu_cluster_token=${value}`;
    const diff = cli(['diff', REFERENCE_PATH, ov], { WANDB_API_KEY: 'x' });
    const argv = cli(['argv', REFERENCE_PATH, ov], { WANDB_API_KEY: 'x' });
    const show = cli(['show', REFERENCE_PATH, ov], { WANDB_API_KEY: 'x' });
    for (const r of [diff, argv, show]) {
      expect(r.out + r.err).not.toContain(value);
      expect(r.code).toBe(2);
      expect(r.err).toContain("override 1 '+webgym.cpu_cluster_token=<redacted>': error secret-in-config");
    }
    expect(diff.out).toContain(
      "+ webgym.cpu_cluster_token: <redacted>  (override 1 '+webgym.cpu_cluster_token=<redacted>')",
    );
    expect(argv.out).toContain('++webgym.cpu_cluster_token=<redacted>\n');
    expect(show.out).toMatch(/^ {2}cpu_cluster_token: <redacted> # override 1$/m);
  });
});

describe('config show --json is exact (#17)', () => {
  it('seed=9007199254740993 stays itself, a float inf/-inf/nan is {"$float": …}, the string \'inf\' a string', () => {
    const r = cli(
      [
        'show',
        REFERENCE_PATH,
        'seed=9007199254740993',
        'actor.optimizer.lr=inf',
        '++gconfig.top_p=nan',
        "trial_name='inf'",
        '--resolved',
        '--json',
      ],
      { WANDB_API_KEY: 'x' },
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('\n  "seed": 9007199254740993,\n');
    expect(r.out).toContain('"lr": {"$float": "inf"}');
    expect(r.out).toContain('"top_p": {"$float": "nan"}');
    expect(r.out).toContain('"trial_name": "inf"');
    const back = JSON.parse(r.out);
    expect([back.actor.optimizer.lr, back.trial_name]).toEqual([{ $float: 'inf' }, 'inf']);
    const effective = cli(['show', REFERENCE_PATH, '++actor.eps_clip=-inf', '--json'], { WANDB_API_KEY: 'x' });
    expect(effective.out).toContain('"eps_clip": {"$float": "-inf"}');
  });
  it('config --help says so', () => {
    const r = cli(['--help']);
    const help = (r.err + r.out).replace(/\s+/g, ' ');
    expect(help).toContain('{"$float": "inf"}, {"$float": "-inf"} or {"$float": "nan"}');
    expect(help).toContain('the STRING \'inf\' stays the JSON string "inf"');
    expect(r.err + r.out).toMatch(/beyond 2\^53/);
  });
  it('an experiment name the target decides is said so by argv', () => {
    const r = cli(['argv', REFERENCE_PATH, 'actor.path=${oc.env:MODEL}'], { WANDB_API_KEY: 'x' });
    expect(r.out).toMatch(/# experiment_name: unknown \(the experiment name depends on the target's environment/);
  });
  it('a 1 KB alias bomb is refused quickly with the limit and why', () => {
    const lines = [
      'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
    ];
    const r = cli(['check', file('bomb.yaml', `${lines.join('\n')}\n`)]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/more than 100,000 values .*would blow up on it too/);
    noStack(r.err);
  });
});
