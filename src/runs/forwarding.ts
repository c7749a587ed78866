// PURE. Which environment variables a launch forwards to the trainer: the ONE decision that the
// pre-flight shows and the launch carries out, so the two can never disagree (issue #17 §3). Here, with
// the launch, and not in src/preflight: runs imports nothing of preflight (preflight builds on runs).
//   - what the config needs (required ones must be set; optional ones go when set);
//   - plus every `--forward-env NAME` (or a profile's forward_env): asked for by name, so required;
//   - plus, on `--launch --resume`, names the run forwarded before that the config does not name
//     (they were added at launch): sent again when set, a warning when not;
//   - minus every `--no-forward-env NAME`, said loudly (the trainer will not see it).
// Names only: a value is never read here.
import { requiredSecretNames } from '../config/index.js';
import type { Target } from './targets.js';

export interface SecretRequirement {
  name: string;
  required: boolean;
  why: string;
  /** Taken out by `--no-forward-env`: not forwarded, shown as a warning. */
  dropped?: boolean;
}

export interface ForwardRequest {
  /** `--forward-env` / profile forward_env: ADDED to what the config needs. */
  add?: readonly string[];
  /** `--no-forward-env`: taken out of the set, with a warning naming what the config needed it for. */
  drop?: readonly string[];
  /** `--launch --resume`: what the run forwarded when it was launched. */
  previously?: readonly string[];
}

export interface ForwardDecision {
  /** Every name considered, in order, as the pre-flight's secrets check shows them. */
  secrets: SecretRequirement[];
  /** The names to send (values are read at launch time), in order. */
  forward: string[];
  /** Required and not set: the launch is refused (the pre-flight says error). */
  missing: SecretRequirement[];
  /** Lines to print before the launch (narrowing, names dropped, previous names now unset). */
  warnings: string[];
}

export function decideForwarding(
  needs: readonly SecretRequirement[],
  req: ForwardRequest,
  isSet: (name: string) => boolean,
): ForwardDecision {
  const secrets: SecretRequirement[] = [];
  const upsert = (s: SecretRequirement) => {
    const at = secrets.findIndex((x) => x.name === s.name);
    if (at < 0) secrets.push({ ...s });
    // Asked for by name: it must be there, whatever the config says of it.
    else if (s.required && !secrets[at].required)
      secrets[at] = { ...secrets[at], required: true, why: `${secrets[at].why}; and --forward-env ${s.name}` };
  };
  for (const n of needs) upsert(n);
  for (const name of req.add ?? []) upsert({ name, required: true, why: `--forward-env ${name}` });
  for (const name of req.previously ?? []) {
    if (!secrets.some((s) => s.name === name))
      secrets.push({ name, required: false, why: 'forwarded when the run was launched' });
  }
  const warnings: string[] = [];
  const drop = new Set(req.drop ?? []);
  for (const name of drop) {
    const s = secrets.find((x) => x.name === name);
    if (!s) warnings.push(`warning: --no-forward-env ${name}: nothing to drop (this launch would not forward ${name})`);
    else {
      s.dropped = true;
      warnings.push(
        `warning: --no-forward-env ${name}: NOT forwarding ${name} although ${s.required ? 'it is needed' : 'it is used'} (${s.why}): the trainer will not see it`,
      );
    }
  }
  const live = secrets.filter((s) => !s.dropped);
  for (const s of live) {
    if (!s.required && !isSet(s.name) && s.why === 'forwarded when the run was launched') {
      warnings.push(`warning: ${s.name} was forwarded when the run was launched but is not set now: not forwarded`);
    }
  }
  return {
    secrets,
    forward: live.filter((s) => isSet(s.name) || s.required).map((s) => s.name),
    missing: live.filter((s) => s.required && !isSet(s.name)),
    warnings,
  };
}

/** The refusal for `missing`, the same words before connecting and after the pre-flight. */
export function missingSecretsMessage(missing: readonly SecretRequirement[]): string {
  const names = missing.map((s) => s.name);
  const them = names.length > 1 ? 'them' : 'it';
  const whys = missing.map((s) => `${s.name}: ${s.why}`).join('; ');
  return `missing environment variable${names.length > 1 ? 's' : ''} ${names.join(', ')} (${whys}): export ${them} before launching (the value is sent on the SSH channel's stdin only), or drop ${them} loudly with --no-forward-env`;
}

/** The forwarding decision for a config on a target: what the pre-flight shows and the launch sends. */
export function forwardingFor(
  resolved: Record<string, any>,
  target: Pick<Target, 'forwardEnv' | 'noForwardEnv'>,
  envNames: ReadonlySet<string> | readonly string[],
  previously?: readonly string[],
): ForwardDecision {
  const set = new Set(envNames);
  return decideForwarding(
    requiredSecretNames(resolved),
    { add: target.forwardEnv ?? [], drop: target.noForwardEnv ?? [], ...(previously ? { previously } : {}) },
    (n) => set.has(n),
  );
}
