// The one door to a target: `openTransport('local')` or `openTransport('<alias>|user@host[:port]')`.
export type * from './transport.js';
export type {
  OpenTransportOptions,
  InteractivePrompts,
  ReconnectOptions,
  LoginQuestion,
  AnswerLogin,
  SshClientChoice,
} from './options.js';
export { SSH_CLIENTS } from './options.js';
export { shellQuote, commandLine, remoteScript } from './quote.js';
export { LocalTransport } from './local.js';
export { TargetCommandMissing } from './remote-files.js';
export { ConnectFailure, CONNECT_FAILURE_KINDS, isRetryable, type ConnectFailureKind } from './connect-failure.js';
import type { Transport } from './transport.js';
import type { OpenTransportOptions } from './options.js';
import { LocalTransport } from './local.js';
import { resolveChain } from './ssh-config.js';

/** Resolves once connected the first time (through the user's OpenSSH and its ControlMaster when
 *  the target's ssh config sets a ControlPath, or `sshClient: 'openssh'`; else ssh2); rejects with a ConnectFailure (its `kind`, and a message
 *  naming the host and what to do) on auth failure, a refused host key, or an unreachable host. */
export async function openTransport(target: string, opts: OpenTransportOptions = {}): Promise<Transport> {
  if (target === 'local') return new LocalTransport({ followPollMs: opts.followPollMs });
  // `ssh -G` resolves the target while ssh2 loads (lazily: local-only commands do not pay for it).
  // Unless OpenSSH is asked for, ssh2 loads before the settings say which client: its ~0.1 s of
  // loading is not after `ssh -G`'s, but beside it (wasted where a ControlPath picks OpenSSH).
  const resolving = resolveChain(target, opts.sshConfigFile);
  resolving.catch(() => undefined); // awaited in open(); a failure is thrown there
  const choice = opts.sshClient ?? 'auto';
  const ssh2 = choice === 'openssh' ? null : import('./ssh-transport.js');
  ssh2?.catch(() => undefined); // awaited below; a failure is thrown there
  if (choice !== 'ssh2') {
    const chain = await resolving;
    const settings = chain[chain.length - 1];
    if (choice === 'openssh' || settings.controlPath) {
      const { OpensshTransport } = await import('./openssh-transport.js');
      return OpensshTransport.open(target, opts, settings);
    }
  }
  const { SshTransport } = await (ssh2 ?? import('./ssh-transport.js'));
  return SshTransport.open(target, opts, resolving);
}
