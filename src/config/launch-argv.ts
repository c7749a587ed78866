// The exact argv that runs the trainer: `python3 webgym/train.py --config <remote yaml> ++k=v …`.
// Every override is normalised to `++key=value` (works whether or not the YAML has the key; the
// structured merge still rejects unknown keys) or `~key`, values re-quoted for Hydra.
// A secret key's value is written <redacted>: a command line is visible in `ps`, and a config
// with a secret in it is an error (`secret-in-config`) that nothing launches.
import { formatTypedValue } from './format-value.js';
import type { ParsedOverride } from './overrides-grammar.js';
import { REDACTED } from './secret-keys.js';

export function buildLaunchArgv(
  overrides: readonly ParsedOverride[],
  opts: { remoteConfigPath: string; python?: string },
  isSecretKey: (key: string) => boolean = () => false,
): string[] {
  const argv = [opts.python ?? 'python3', 'webgym/train.py', '--config', opts.remoteConfigPath];
  const value = (o: ParsedOverride) =>
    isSecretKey(o.key) && o.value!.t !== 'null' && !(o.value!.t === 'str' && o.value!.v === '')
      ? REDACTED
      : formatTypedValue(o.value!);
  for (const o of overrides) {
    if (o.kind === 'delete') argv.push(o.value ? `~${o.key}=${value(o)}` : `~${o.key}`);
    else argv.push(`++${o.key}=${value(o)}`);
  }
  return argv;
}
