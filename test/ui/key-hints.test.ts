// Key names in prose come from the one binding table (src/ui/key-names.ts keyOf): a hint that
// names a key by hand ("(z: zoom)") is what goes stale when a key moves. This reads every source
// file of the cockpit for such hints; the only ones written by hand are the binding table's own
// disabled reasons and the splash's tab bar (kept light), and each of those must name a key the
// table binds to that action.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BINDINGS, keyLabel } from '../../src/ui/bindings.js';
import { keyOf } from '../../src/ui/key-names.js';
import { tabBar } from '../../src/ui/chrome.js';
import { rewardLines } from '../../src/ui/panels/reward.js';
import { lineText } from '../../src/ui/lines.js';

const SRC = resolve(import.meta.dirname, '../../src');
/** A string literal's text (a template's too, `${…}` kept): where prose is. */
const LITERAL = /'([^'\n]*)'|"([^"\n]*)"|`([^`]*)`/g;
/** In prose, "(z: zoom", "a: no target" (at its start), "? help": a key written into a string. */
const HINT = /(?:^|\()([A-Za-z?]): [a-z]|(?:^| )(\?) help/g;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every hand-written key hint: file, line, key. Comments are not prose. */
function handHints(): { file: string; line: number; key: string; text: string }[] {
  return ['ui', 'session'].flatMap((room) =>
    files(join(SRC, room)).flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((text, i) =>
          /^\s*(\/\/|\*|\/\*)/.test(text)
            ? []
            : [...text.matchAll(LITERAL)].flatMap((l) =>
                [...(l[1] ?? l[2] ?? l[3]).matchAll(HINT)].map((m) => ({
                  file: relative(SRC, f),
                  line: i + 1,
                  key: m[1] ?? m[2],
                  text,
                })),
              ),
        ),
    ),
  );
}

const TABLE_FILES = ['ui/bindings.ts', 'ui/bindings-dialogs.ts', 'ui/bindings-trajectories.ts'];

describe('key names in prose', () => {
  it('keyOf reads the table: the first key of the action, a thrown error for an action nothing binds', () => {
    for (const b of BINDINGS) expect(keyOf(b.command)).toBe(keyLabel({ keys: [b.keys[0]] }));
    expect(keyOf('zoom')).toBe('z');
    expect(() => keyOf('no-such-action')).toThrow(/no binding for 'no-such-action'/);
  });

  it('no panel, screen or session text names a key by hand (they call keyOf)', () => {
    const stray = handHints().filter((h) => !TABLE_FILES.includes(h.file) && h.file !== 'ui/chrome.ts');
    expect(stray.map((h) => `${h.file}:${h.line}: ${h.text.trim()}`)).toEqual([]);
  });

  it("the table's own disabled reasons name a key of a binding that has one", () => {
    const hints = handHints().filter((h) => TABLE_FILES.includes(h.file));
    expect(hints.length).toBeGreaterThan(5);
    const withReason = BINDINGS.filter((b) => b.disabledReason);
    for (const h of hints)
      expect(
        withReason.some((b) => b.keys.includes(h.key)),
        `${h.file}:${h.line}`,
      ).toBe(true);
  });

  it("the tab bar's '? help  q quit' are the table's help and quit keys", () => {
    expect(lineText(tabBar('dashboard', 200))).toMatch(new RegExp(`\\${keyOf('help')} help  ${keyOf('quit')} quit$`));
  });

  it('a panel hint says the key the table binds (d: by difficulty)', () => {
    const lines = rewardLines(
      { reward: [0.1, 0.2], stepsPerPoint: 1, latest: 0.2, difficulty: null, evalReward: null, latestEval: null },
      80,
      8,
      false,
    ).map(lineText);
    expect(lines.join('\n')).toContain(`(${keyOf('difficulty')}: by difficulty)`);
  });
});
