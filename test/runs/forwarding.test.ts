// Issue #17 §3: one decision on the forwarded secrets, shown by the pre-flight and carried out by
// the launch. --forward-env ADDS (and is required); --no-forward-env narrows, loudly.
import { describe, it, expect } from 'vitest';
import { decideForwarding, forwardingFor, missingSecretsMessage } from '../../src/runs/forwarding.js';
import { checkSecrets } from '../../src/preflight/evaluate.js';
import type { PreflightInput } from '../../src/preflight/input.js';

const resolved = {
  webgym: { cpu_cluster_token_env_var: 'CPU_CLUSTER_TOKEN' },
  openai_config: { openai_api_key_env_var: 'GEMINI_API_KEY' },
};
const secretsCheck = (d: ReturnType<typeof forwardingFor>, set: string[]) =>
  checkSecrets({ secrets: d.secrets, envNames: new Set(set) } as unknown as PreflightInput);

describe('the forwarded secret set', () => {
  it('--forward-env adds to what the config needs: the Omniboxes token still goes', () => {
    const d = forwardingFor(resolved, { forwardEnv: ['HF_TOKEN'] }, ['CPU_CLUSTER_TOKEN', 'HF_TOKEN']);
    expect(d.forward).toEqual(['CPU_CLUSTER_TOKEN', 'HF_TOKEN']);
    expect(d.missing).toEqual([]);
    expect(secretsCheck(d, ['CPU_CLUSTER_TOKEN', 'HF_TOKEN'])).toMatchObject({
      result: 'warning',
      seen: expect.stringContaining('set locally: CPU_CLUSTER_TOKEN, HF_TOKEN'),
    });
  });

  it('a --forward-env name that is not set is an error for both the pre-flight and the launch', () => {
    const d = forwardingFor(resolved, { forwardEnv: ['UNSET_ONE'] }, ['CPU_CLUSTER_TOKEN']);
    expect(d.missing.map((s) => s.name)).toEqual(['UNSET_ONE']);
    expect(secretsCheck(d, ['CPU_CLUSTER_TOKEN']).result).toBe('error');
    expect(missingSecretsMessage(d.missing)).toMatch(
      /^missing environment variable UNSET_ONE \(UNSET_ONE: --forward-env UNSET_ONE\)/,
    );
  });

  it('an optional name asked for by --forward-env becomes required', () => {
    const d = forwardingFor(resolved, { forwardEnv: ['GEMINI_API_KEY'] }, ['CPU_CLUSTER_TOKEN']);
    expect(d.missing.map((s) => s.name)).toEqual(['GEMINI_API_KEY']);
  });

  it('--no-forward-env narrows, loudly, and the pre-flight warns instead of erring', () => {
    const d = forwardingFor(resolved, { noForwardEnv: ['CPU_CLUSTER_TOKEN'] }, []);
    expect(d.forward).toEqual([]);
    expect(d.missing).toEqual([]);
    expect(d.warnings.join('\n')).toMatch(
      /--no-forward-env CPU_CLUSTER_TOKEN: NOT forwarding CPU_CLUSTER_TOKEN although it is needed/,
    );
    const c = secretsCheck(d, []);
    expect(c.result).toBe('warning');
    expect(c.seen).toContain('CPU_CLUSTER_TOKEN NOT forwarded');
    expect(forwardingFor(resolved, { noForwardEnv: ['NOPE'] }, []).warnings[0]).toMatch(/nothing to drop/);
  });

  it('resume: an optional name the run forwarded before is not required now (no refusal after "optional")', () => {
    const d = decideForwarding(
      [
        { name: 'CPU_CLUSTER_TOKEN', required: true, why: 'token' },
        { name: 'GEMINI_API_KEY', required: false, why: 'evaluator' },
      ],
      { previously: ['CPU_CLUSTER_TOKEN', 'GEMINI_API_KEY', 'HF_TOKEN'] },
      (n) => n === 'CPU_CLUSTER_TOKEN',
    );
    expect(d.forward).toEqual(['CPU_CLUSTER_TOKEN']);
    expect(d.missing).toEqual([]);
    expect(d.warnings).toEqual([
      'warning: HF_TOKEN was forwarded when the run was launched but is not set now: not forwarded',
    ]);
  });
});
