// A key named in prose (a panel's "(z: zoom)", the log's "a: all lines") is read from the one
// binding table: change a key there and every hint says the new one (test/ui/key-hints.test.ts
// fails on a hint that names a key by hand).
import { keyLabel } from './binding-keys.js';
import { BINDINGS } from './bindings.js';

/** The first key bound to `command`, as people write it ('z', '?', 'Enter'). Throws for a command
 *  the table does not have: a hint must not name a key nothing answers to. */
export function keyOf(command: string): string {
  const b = BINDINGS.find((x) => x.command === command);
  if (!b) throw new Error(`no binding for '${command}' (src/ui/bindings.ts)`);
  return keyLabel({ keys: b.keys.slice(0, 1) });
}
