// Tests only: AWRL_TEST_LAUNCH_HOLD=STEP:FILE makes a launch wait at STEP while FILE exists (saying
// so in FILE.reached), so a test can interrupt it exactly there instead of guessing with sleeps.
// The start script honours the same value for its own steps (start-scripts.ts).
import { existsSync, writeFileSync } from 'node:fs';

export const HOLD_ENV = 'AWRL_TEST_LAUNCH_HOLD';

export async function holdAt(hold: string | undefined, step: string): Promise<void> {
  if (!hold || hold.slice(0, hold.indexOf(':')) !== step) return;
  const file = hold.slice(hold.indexOf(':') + 1);
  writeFileSync(`${file}.reached`, '');
  while (existsSync(file)) await new Promise((r) => setTimeout(r, 50));
}
