// The exact argv that runs the trainer: `python3 webgym/train.py --config <remote yaml> ++k=v …`.
// Every override is normalised to `++key=value` (works whether or not the YAML has the key; the
// structured merge still rejects unknown keys) or `~key`, values re-quoted for Hydra.
import { formatTypedValue } from './format-value.js';
import type { ParsedOverride } from './overrides-grammar.js';

export function buildLaunchArgv(overrides: readonly ParsedOverride[], opts: { remoteConfigPath: string; python?: string }): string[] {
  const argv = [opts.python ?? 'python3', 'webgym/train.py', '--config', opts.remoteConfigPath];
  for (const o of overrides) {
    if (o.kind === 'delete') argv.push(o.value ? `~${o.key}=${formatTypedValue(o.value)}` : `~${o.key}`);
    else argv.push(`++${o.key}=${formatTypedValue(o.value!)}`);
  }
  return argv;
}
