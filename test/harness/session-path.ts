// A login PATH for a test sshd that differs from this machine's in a few commands: every command of
// /usr/bin linked into `dir/bin`, but those named in `without`, and the scripts in `replaced` in
// their place. For a head without zstd or gzip, or with a broken or slow one. Pass the returned
// lines to startSshd's extraConfig.
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function sessionPathConfig(dir: string, without: string[], replaced: Record<string, string> = {}): string[] {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of readdirSync('/usr/bin'))
    if (!without.includes(name) && !(name in replaced)) symlinkSync(join('/usr/bin', name), join(bin, name));
  for (const [name, script] of Object.entries(replaced)) writeFileSync(join(bin, name), script, { mode: 0o755 });
  return [`SetEnv SHLVL=1 PATH=${bin}`];
}
