// A secret written into the config (or given as an override) is the error `secret-in-config`, and
// nothing the engine prints shows its value: the effective and resolved YAML keep the key and the
// line with <redacted>, the JSON, the diff, the launch argv and every message too. One case per
// secret the trainer knows: its own keys and the env var names it reads as secrets.
import { describe, expect, it } from 'vitest';
import { diffConfigs, formatChange, formatDiagnostic } from '../../src/config/index.js';
import { evaluate, mutate, REFERENCE } from './helpers.js';

interface SecretCase {
  name: string;
  key: string; // dotted key that holds the secret
  /** Insert the secret line into the reference config. */
  file: (value: string) => string;
  /** The same secret given as an override (to `base`, the reference unless said). */
  override: (value: string) => string;
  base?: string;
}

const ENV_ANCHOR = '        WEBGYM_SKIP_IMAGE_JUDGE: "0"';
const envVar = (name: string, text = REFERENCE): SecretCase => ({
  name: `${name} in actor.scheduling_spec.0.env_vars`,
  key: `actor.scheduling_spec.0.env_vars.${name}`,
  file: (v) => mutate(ENV_ANCHOR, `${ENV_ANCHOR}\n        ${name}: "${v}"`, text),
  override: (v) => `+actor.scheduling_spec.0.env_vars.${name}=${v}`,
  base: text,
});

const CASES: SecretCase[] = [
  {
    name: 'stats_logger.wandb.wandb_api_key',
    key: 'stats_logger.wandb.wandb_api_key',
    file: (v) => mutate('    entity: webgym', `    entity: webgym\n    wandb_api_key: ${v}`),
    override: (v) => `++stats_logger.wandb.wandb_api_key=${v}`,
  },
  {
    name: 'webgym.cpu_cluster_token (the Omniboxes token)',
    key: 'webgym.cpu_cluster_token',
    file: (v) =>
      mutate(
        '  cpu_cluster_token_env_var: "CPU_CLUSTER_TOKEN"',
        `  cpu_cluster_token_env_var: "CPU_CLUSTER_TOKEN"\n  cpu_cluster_token: '${v}'`,
      ),
    override: (v) => `+webgym.cpu_cluster_token=${v}`,
  },
  {
    name: 'stats_logger.swanlab.api_key',
    key: 'stats_logger.swanlab.api_key',
    file: (v) => mutate('    id_suffix: timestamp', `    id_suffix: timestamp\n  swanlab:\n    api_key: ${v}`),
    override: (v) => `++stats_logger.swanlab.api_key=${v}`,
  },
  {
    name: 'openai_config.openai_api_key',
    key: 'openai_config.openai_api_key',
    file: (v) =>
      mutate(
        '  openai_api_key_env_var: "GEMINI_API_KEY"',
        `  openai_api_key_env_var: "GEMINI_API_KEY"\n  openai_api_key: "${v}"`,
      ),
    override: (v) => `+openai_config.openai_api_key=${v}`,
  },
  envVar('WANDB_API_KEY'),
  envVar('CPU_CLUSTER_TOKEN'),
  envVar('GEMINI_API_KEY'),
  envVar('SWANLAB_API_KEY'),
  // A token variable renamed through webgym.cpu_cluster_token_env_var is that token.
  envVar(
    'OMNIBOX_TOKEN_PROD',
    mutate('cpu_cluster_token_env_var: "CPU_CLUSTER_TOKEN"', 'cpu_cluster_token_env_var: "OMNIBOX_TOKEN_PROD"'),
  ),
];

const ENV = ['WANDB_API_KEY', 'CPU_CLUSTER_TOKEN', 'OMNIBOX_TOKEN_PROD'];
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe.each(CASES)('secret $name', (c) => {
  const value = `sk-live-${c.key.length}-9f8e7d6c`;
  const last = c.key.slice(c.key.lastIndexOf('.') + 1);

  it('in the file: an error at its line; the YAML, JSON and messages show <redacted> on the same line', () => {
    const text = c.file(value);
    const line = lineOf(text, value);
    const ev = evaluate(text, ['seed=7'], ENV);
    const d = ev.diagnostics.filter((x) => x.code === 'secret-in-config');
    expect(d.map((x) => [x.key, x.line])).toEqual([[c.key, line]]);
    expect(ev.secretKeys).toEqual([c.key]);

    const y = ev.effectiveYaml();
    expect(y.split('\n').length).toBe(text.split('\n').length);
    expect(y.split('\n')[line - 1]).toMatch(new RegExp(`^\\s+${last}: <redacted>$`));
    expect(y).toMatch(/^seed: 7 # override 1$/m);
    const resolvedYaml = ev.effectiveYaml({ resolved: true });
    expect(resolvedYaml).toMatch(new RegExp(`^\\s+${last}: <redacted>$`, 'm'));

    const printed = [
      y,
      resolvedYaml,
      JSON.stringify(ev.effective),
      JSON.stringify(ev.redact(ev.resolved)),
      JSON.stringify(ev.resolvedTree ? ev.effectiveYaml({ resolved: true }) : ''),
      ...ev.diagnostics.map((x) => formatDiagnostic(x, 'cfg.yaml')),
    ];
    for (const p of printed) expect(p).not.toContain(value);
    expect(JSON.stringify(ev.redact(ev.resolved))).toContain('<redacted>');
  });

  it('as an override: error at the override, masked there, <redacted> in the YAML, the diff and the argv', () => {
    const ov = c.override(value);
    const base = c.base ?? REFERENCE;
    const ev = evaluate(base, ['seed=7', ov], ENV);
    const d = ev.diagnostics.find((x) => x.code === 'secret-in-config')!;
    expect(d.override).toEqual({ index: 2, text: `${ov.slice(0, ov.indexOf('=') + 1)}<redacted>` });
    expect(ev.maskedOverrides[1]).toBe(d.override!.text);

    const y = ev.effectiveYaml();
    expect(y).toMatch(new RegExp(`^\\s+${last}: <redacted> # override 2$`, 'm'));
    const changes = diffConfigs(evaluate(base, [], ENV).resolved!, ev.resolved!).filter((x) => x.key === c.key);
    expect(changes.length).toBe(1);
    expect(formatChange(changes[0])).toMatch(
      new RegExp(`^[+~] ${c.key.replace(/\./g, '\\.')}: (?:(?:""|None) -> )?<redacted>$`),
    );
    const argv = ev.launchArgv({ remoteConfigPath: 'c.yaml' });
    expect(argv).toContain(`++${c.key}=<redacted>`);

    const printed = [
      y,
      ev.effectiveYaml({ resolved: true }),
      JSON.stringify(ev.effective),
      ...argv,
      ...ev.diagnostics.map((x) => formatDiagnostic(x, 'cfg.yaml')),
    ];
    for (const p of printed) expect(p).not.toContain(value);
  });
});

describe('secret values in other messages', () => {
  it('a loader error quoting a secret value does not show it', () => {
    const text = mutate('    entity: webgym', '    entity: webgym\n    wandb_api_key: !!int sk-live-abcdef12');
    const ev = evaluate(text);
    expect(ev.diagnostics.map((d) => d.code)).toContain('yaml-syntax');
    for (const d of ev.diagnostics) expect(formatDiagnostic(d, 'cfg.yaml')).not.toContain('sk-live-abcdef12');
  });
  it('a wrong guess in ~key=value shows neither value', () => {
    const text = mutate(ENV_ANCHOR, `${ENV_ANCHOR}\n        GEMINI_API_KEY: "gm-real-value-123"`);
    const ev = evaluate(text, ['~actor.scheduling_spec.0.env_vars.GEMINI_API_KEY=gm-guess-456']);
    const all = ev.diagnostics.map((d) => formatDiagnostic(d, 'cfg.yaml')).join('\n');
    expect(all).toContain('override-delete');
    expect(all).not.toMatch(/gm-real-value-123|gm-guess-456/);
  });
  it('a secret reaching its key through an interpolation is hidden where it is written too', () => {
    const text = mutate('    entity: webgym', '    entity: webgym\n    wandb_api_key: ${webgym.stash}').replace(
      '  host_ip: "127.0.0.1"',
      '  host_ip: "127.0.0.1"\n  stash: wb-hidden-0042',
    );
    const ev = evaluate(text);
    expect(ev.diagnostics.filter((d) => d.code === 'secret-in-config').map((d) => d.key)).toEqual([
      'stats_logger.wandb.wandb_api_key',
    ]);
    const y = ev.effectiveYaml();
    expect(y).toContain('  stash: <redacted>\n');
    expect(y).toContain('    wandb_api_key: ${webgym.stash}\n');
    for (const p of [
      y,
      ev.effectiveYaml({ resolved: true }),
      JSON.stringify(ev.effective),
      JSON.stringify(ev.redact(ev.resolved)),
    ])
      expect(p).not.toContain('wb-hidden-0042');
  });
  it('${oc.env:NAME} under a secret key reads the environment: not a secret, shown as is', () => {
    const text = mutate('    entity: webgym', '    entity: webgym\n    wandb_api_key: ${oc.env:WANDB_API_KEY}');
    const ev = evaluate(text);
    expect(ev.diagnostics.filter((d) => d.code === 'secret-in-config')).toEqual([]);
    expect(ev.effectiveYaml()).toContain('wandb_api_key: ${oc.env:WANDB_API_KEY}');
  });
  it('in a flow mapping, a block scalar, behind an alias, as a number: <redacted> on its line', () => {
    const show = (t: string) => evaluate(t).effectiveYaml();
    expect(show('webgym: {cpu_cluster_token: sk-abc-123456, x: 1}\n\nseed: 1\n')).toBe(
      "webgym: {cpu_cluster_token: '<redacted>', x: 1}\n\nseed: 1\n",
    );
    expect(show('webgym:\n  cpu_cluster_token: |\n    sk-abc-123456\n\nseed: 1\n')).toBe(
      'webgym:\n  cpu_cluster_token: <redacted>\n\nseed: 1\n',
    );
    expect(show('webgym:\n  cpu_cluster_token: 12345678\n')).toBe('webgym:\n  cpu_cluster_token: <redacted>\n');
    const aliased = show('a: &s sk-abc-123456\nwebgym:\n  cpu_cluster_token: *s\n');
    expect(aliased).not.toContain('sk-abc-123456');
    expect(aliased).toContain('  cpu_cluster_token: <redacted>');
  });
  it('an empty secret key is not a secret', () => {
    const ev = evaluate(REFERENCE, ['++stats_logger.wandb.wandb_api_key=']);
    expect(ev.diagnostics.filter((d) => d.code === 'secret-in-config')).toEqual([]);
    expect(ev.launchArgv({ remoteConfigPath: 'c.yaml' })).toContain("++stats_logger.wandb.wandb_api_key=''");
  });
});
