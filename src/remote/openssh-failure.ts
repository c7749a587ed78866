// What the `ssh` client's own words on stderr mean: a command that ended with 255 and one of these
// lines lost its connection (or never had one); anything else is the remote command's own status.
// A failed login or check becomes the same ConnectFailure kinds the ssh2 transport names.
import { ConnectFailure, type ConnectFacts } from './connect-failure.js';
import { needsPersonMessage } from './ssh-login.js';

/** Lines the ssh client (not the remote command) writes when it cannot carry a command. */
const CLIENT_LINE =
  /^(ssh: |ssh_dispatch_run_fatal|Connection (closed|reset|refused|timed out)|Connection to \S+ closed|Control ?socket|ControlSocket|mux_client_|muxclient: |client_loop: |Permission denied \(|Host key verification failed|kex_exchange_identification|Timeout, server|Received disconnect|Disconnected from|packet_write_wait|Bad owner or permissions|Could not resolve hostname|command-line line|\S+ line \d+: Bad configuration)/m;

/** Did the ssh client (exit 255) end this command, rather than the command itself? */
export const isClientFailure = (code: number | null, stderr: string): boolean =>
  code === 255 && CLIENT_LINE.test(stderr);

/** The last line the ssh client wrote (for messages), without secrets of its own. */
export function clientLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => CLIENT_LINE.test(l));
  return (lines.at(-1) ?? stderr.trim().split('\n').at(-1) ?? '').trim();
}

/**
 * A failed login or master check through `ssh` as a ConnectFailure. `reconnect`: the transport
 * was connected before (a keyboard-interactive refusal then needs the person again).
 */
export function opensshFailure(
  target: string,
  stderr: string,
  o: { reconnect: boolean; facts: ConnectFacts },
): ConnectFailure {
  const line = clientLine(stderr) || 'ssh exited without saying why';
  const denied = /Permission denied \(([^)]*)\)/.exec(stderr);
  if (denied && denied[1].split(',').includes('keyboard-interactive'))
    return new ConnectFailure('login-needs-person', needsPersonMessage(target, null, o.reconnect), o.facts);
  const kind = denied
    ? 'auth-failed'
    : /REMOTE HOST IDENTIFICATION HAS CHANGED/.test(stderr)
      ? 'host-key-mismatch'
      : /Host key verification failed|host key is known|No \S+ host key is known/.test(stderr)
        ? 'host-key-unknown'
        : /Bad configuration|command-line line|Bad owner or permissions|no argument after keyword/.test(stderr)
          ? 'ssh-settings'
          : /timed out/i.test(stderr)
            ? 'timeout'
            : /Connection closed|Connection reset|kex_exchange_identification/.test(stderr)
              ? 'closed'
              : 'unreachable';
  const todo: Record<string, string> = {
    'auth-failed': 'check User and IdentityFile in your ssh config, or load your key with ssh-add',
    'host-key-mismatch': 'if the host was really re-keyed, remove the old known_hosts line (ssh-keygen -R)',
    'host-key-unknown': `accept the key once with ssh ${target} (after checking its fingerprint)`,
    'ssh-settings': 'fix the ssh config for this host',
  };
  return new ConnectFailure(kind, `ssh to ${target} failed: ${line}${todo[kind] ? `; ${todo[kind]}` : ''}`, o.facts);
}
