// Turning command-line target flags into connected transports for the cockpit, before Ink takes
// the terminal (host-key and passphrase questions are asked on plain stderr/stdin).
import { createInterface } from 'node:readline/promises';
import { openTransport } from '../remote/index.js';
import { resolveTarget, type Target, type TargetFlags } from '../runs/index.js';
import { readProfiles } from '../runs/cli-target.js';
import type { TargetConnection } from './session/live-session.js';
import type { CockpitFlags } from './cockpit-args.js';

export { parseCockpitArgs, type CockpitArgs, type CockpitFlags } from './cockpit-args.js';

/** A target with the hosts of a direct multi-node run the user named (`--check-nodes`). */
export type CockpitTarget = Target & { directRunHosts?: string[] };

/** The targets the cockpit shows: the one given with --target, else every profile. `--check-nodes`
 *  hosts go with each (a run is found on one of them; the hosts belong to its head). */
export async function resolveTargets(flags: TargetFlags & CockpitFlags): Promise<CockpitTarget[]> {
  // The same profile file (and AWRL_TARGETS_FILE) as the headless commands.
  const profiles = readProfiles();
  const hosts = flags.directRunHosts?.length ? { directRunHosts: [...flags.directRunHosts] } : {};
  if (flags.target) {
    const t = resolveTarget(flags, profiles);
    if (typeof t === 'string') throw new Error(t);
    return [{ ...t, ...hosts }];
  }
  return Object.values(profiles).map((t) => ({ ...t, ...hosts }));
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** Connect every target; a target that cannot be reached is reported, not fatal, unless all fail. */
export async function connectTargets(targets: CockpitTarget[]): Promise<{ connections: TargetConnection[]; failures: string[] }> {
  const results = await Promise.allSettled(
    targets.map(async ({ directRunHosts, ...target }) => ({
      target,
      ...(directRunHosts?.length ? { directRunHosts } : {}),
      transport: await openTransport(target.host, {
        sshConfigFile: target.sshConfigFile,
        interactive: {
          askHostKey: async ({ host, fingerprint }) => /^y(es)?$/i.test((await ask(`The authenticity of host '${host}' can't be established.\nKey fingerprint is ${fingerprint}.\nTrust it and continue (yes/no)? `)).trim()),
          askPassphrase: async (keyPath) => (await ask(`Passphrase for ${keyPath} (empty to skip): `)) || null,
        },
      }),
    })),
  );
  const connections: TargetConnection[] = [];
  const failures: string[] = [];
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') connections.push(r.value);
    else failures.push(`${targets[i].name}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`);
  });
  return { connections, failures };
}
