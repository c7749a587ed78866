// `--images MODE` on the commands that open the cockpit: a mode that is not one is bad input, said in
// one line with the modes there are, before anything starts (no terminal needed to be told).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;

describe('--images on the cockpit, watch and the demo', () => {
  it.each([[['--demo']], [['watch', 'r1']]])('%j --images png: exit 2, one line with the modes', (words) => {
    const r = spawnSync(process.execPath, [BIN, ...words, '--images', 'png'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.stderr.trim()).toBe("awrl-tui: --images takes auto|blocks|kitty|sixel|iterm|none, not 'png'");
    expect(r.status).toBe(2);
  });
});
