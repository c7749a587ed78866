// Turning command-line target flags into connected transports for the cockpit, before Ink takes
// the terminal (host-key and passphrase questions are asked on plain stderr/stdin).
import { createInterface } from 'node:readline/promises';
import { openTransport } from '../remote/index.js';
import { terminalAnswerLogin } from '../remote/terminal-login.js';
import type { AnswerLogin } from '../remote/options.js';
import { resolveTarget, type Target, type TargetFlags } from '../runs/index.js';
import { readProfiles } from '../runs/cli-target.js';
import type { TargetConnection } from '../session/live-session.js';
import { RetryTransport } from '../session/retry-transport.js';
import { connectProblem, connectProblemText, type ConnectProblem } from '../session/connect-advice.js';
import type { CockpitFlags } from './cockpit-args.js';

export { connectProblem, connectProblemText, type ConnectProblem } from '../session/connect-advice.js';
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

/**
 * Connect every target (host-key and passphrase questions asked on the terminal, before Ink). What
 * could not be connected is said per kind of failure (connect-advice.ts): `failures` one line each
 * (for stderr, and the one-line error when no target could be reached), `problems` as data. When at
 * least one target connected, the others are kept as connections too (RetryTransport, state
 * `failed`): the Runs screen shows each with what to do, and `r` connects again where retrying
 * can help. When none connected the caller either says so and exits (watch: its run is out of
 * reach) or, with `keepWhenNoneConnected`, opens the cockpit on them all (the cockpit command).
 */
export async function connectTargets(
  targets: CockpitTarget[],
  opts: { keepWhenNoneConnected?: boolean } = {},
): Promise<{ connections: TargetConnection[]; failures: string[]; problems: ConnectProblem[] }> {
  const results = await Promise.allSettled(
    targets.map(async ({ directRunHosts, ...target }) => ({
      target,
      ...(directRunHosts?.length ? { directRunHosts } : {}),
      transport: await openTransport(target.host, {
        sshConfigFile: target.sshConfigFile,
        ...(target.backlogCodec ? { followCompressCodec: target.backlogCodec } : {}),
        ...(target.sshClient ? { sshClient: target.sshClient } : {}),
        interactive: {
          askHostKey: async ({ host, fingerprint }) =>
            /^y(es)?$/i.test(
              (
                await ask(
                  `The authenticity of host '${host}' can't be established.\nKey fingerprint is ${fingerprint}.\nTrust it and continue (yes/no)? `,
                )
              ).trim(),
            ),
          askPassphrase: async (keyPath) => (await ask(`Passphrase for ${keyPath} (empty to skip): `)) || null,
        },
        // A second factor (a one-time code) is typed here too, hidden when the server asks so.
        answerLogin: terminalAnswerLogin(),
      }),
    })),
  );
  // Every target in the order given, connected or not (`ok`: it connected).
  const all: { conn: TargetConnection; ok: boolean }[] = [];
  const problems: ConnectProblem[] = [];
  // The caller prints `failures` once the cockpit has closed: a target that `r` connected since is
  // taken off the list, so the terminal is not told it could not be reached.
  const failures: string[] = [];
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') return void all.push({ conn: r.value, ok: true });
    const { directRunHosts, ...target } = targets[i];
    const problem = connectProblem(target.name, r.reason);
    const line = connectProblemText(problem);
    problems.push(problem);
    failures.push(line);
    // A retry from inside the cockpit asks nothing (Ink owns the terminal): an unknown key or an
    // encrypted key is then said again, with what to do.
    // A second factor is asked only when the person asked for it (`r`): then in the cockpit's dialog.
    const retry = (answer?: AnswerLogin) =>
      openTransport(target.host, {
        sshConfigFile: target.sshConfigFile,
        ...(target.backlogCodec ? { followCompressCodec: target.backlogCodec } : {}),
        ...(target.sshClient ? { sshClient: target.sshClient } : {}),
        ...(answer ? { answerLogin: answer } : {}),
      });
    const connected = () => {
      const at = failures.indexOf(line);
      if (at >= 0) failures.splice(at, 1);
    };
    const transport = new RetryTransport(target.host, target.name, problem, retry, connected);
    all.push({ conn: { target, ...(directRunHosts?.length ? { directRunHosts } : {}), transport }, ok: false });
  });
  // `keepWhenNoneConnected`: the cockpit opens anyway, on the Runs screen with each problem and `r`.
  const connections = all.some((c) => c.ok) || opts.keepWhenNoneConnected ? all.map((c) => c.conn) : [];
  return { connections, failures, problems };
}
