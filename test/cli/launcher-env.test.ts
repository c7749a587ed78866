// The launcher hides NODE_EXTRA_CA_CERTS from node's start-up (bin/awrl-tui.js's `env -S` line)
// and main.js gives it back to the processes awrl-tui starts.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { giveBackCaCerts, HIDDEN_CA_CERTS } from '../../src/cli/launcher-env.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
// Node warns on stderr when it loads an extra CA bundle that does not exist: the sign it loaded it.
const MISSING = '/nonexistent/awrl-extra-ca.pem';
const env = { ...process.env, NODE_EXTRA_CA_CERTS: MISSING };

describe('the launcher and NODE_EXTRA_CA_CERTS', () => {
  it("keeps the CA bundle out of node's start-up when run as a program (its #! line)", () => {
    const direct = spawnSync(BIN, ['--version'], { encoding: 'utf8', env });
    expect(direct.status).toBe(0);
    expect(direct.stdout).toMatch(/^awrl-tui /);
    expect(direct.stderr).toBe('');
    // The control: the same node started without the launcher's line loads (and warns about) it.
    const plain = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8', env });
    expect(plain.stderr).toContain(MISSING);
  });

  it('gives the variable back for child processes, and leaves no trace of the hiding', () => {
    const e: NodeJS.ProcessEnv = { [HIDDEN_CA_CERTS]: '/etc/ssl/my ca.pem', PATH: '/bin' };
    giveBackCaCerts(e);
    expect(e).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/ssl/my ca.pem', PATH: '/bin' });
    // Unset before the launcher ran: `${NODE_EXTRA_CA_CERTS}` expanded to nothing.
    const unset: NodeJS.ProcessEnv = { [HIDDEN_CA_CERTS]: '', PATH: '/bin' };
    giveBackCaCerts(unset);
    expect(unset).toEqual({ PATH: '/bin' });
    // Started without the launcher (node bin/awrl-tui.js): nothing to do.
    const untouched: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/x.pem' };
    giveBackCaCerts(untouched);
    expect(untouched).toEqual({ NODE_EXTRA_CA_CERTS: '/x.pem' });
  });
});
