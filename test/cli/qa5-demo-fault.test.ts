// QA pass 5: `awrl-tui --demo --fault SPEC` with a SPEC the simulator cannot read started a demo
// run that failed at once ("AWRL_SIM_FAULT: fault 'bogus' needs @STEP" in its log, the cockpit
// on a failed run); it is bad input, said before anything starts.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;

describe('--demo --fault', () => {
  it.each([
    ['bogus', "fault 'bogus' needs @STEP"],
    ['stall@x', "bad step 'x'"],
    ['nosuchfault@3', "unknown fault 'nosuchfault'"],
  ])('rejects %s before starting anything (exit 2, one line)', (spec, said) => {
    const r = spawnSync(process.execPath, [BIN, '--demo', '--fault', spec], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^awrl-tui: --fault: /);
    expect(r.stderr).toContain(said);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/terminal/);
  });
});
