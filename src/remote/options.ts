// Options accepted by openTransport. Every timeout is configurable so tests can run with 1 s
// keepalives and heartbeats and still finish fast; the defaults are the production values.

/** How a follower's long backlog crosses the wire: `auto`, the best codec for this client the
 *  target has, or a codec to take first (codecPreference in member-decoder.ts). The one list:
 *  targets.yaml's `backlog_codec` takes the same words. */
export const CODEC_CHOICES = ['auto', 'lz4', 'zstd', 'gzip'] as const;
export type CodecChoice = (typeof CODEC_CHOICES)[number];

/** Which ssh client carries a target: `auto` (OpenSSH when `ssh -G` shows a ControlPath for it,
 *  else ssh2), `openssh` (the user's own `ssh`, riding its ControlMaster), `ssh2` (built in). The one
 *  list: `--ssh` and targets.yaml's `ssh` take the same words. */
export const SSH_CLIENTS = ['auto', 'openssh', 'ssh2'] as const;
export type SshClientChoice = (typeof SSH_CLIENTS)[number];

export interface InteractivePrompts {
  /** Unknown host key: show the fingerprint, return true to trust it (a hashed line is written). */
  askHostKey(info: { host: string; fingerprint: string }): Promise<boolean>;
  /** Encrypted private key: return the passphrase, or null to skip this key. */
  askPassphrase(keyPath: string): Promise<string | null>;
}

/** One round of a server's keyboard-interactive login (a one-time code, a push to approve). */
export interface LoginQuestion {
  /** The ssh host as written (alias, user@host[:port], or a ProxyJump hop). */
  target: string;
  /** The server's title and instructions for this round ('' when it sent none). */
  name: string;
  instructions: string;
  /** `echo: false`: the answer is a secret, typed without echo. */
  prompts: { prompt: string; echo: boolean }[];
}

/** Answers a LoginQuestion where a person is (one answer per prompt), or null: they declined. */
export type AnswerLogin = (q: LoginQuestion) => Promise<string[] | null>;

export interface ReconnectOptions {
  /** Full-jitter backoff base (default 1000 ms). */
  baseMs?: number;
  /** Backoff cap (default 60000 ms). */
  capMs?: number;
  /** Give up (state `failed`) after this long without a connection (default: never). */
  maxElapsedMs?: number;
}

export interface OpenTransportOptions {
  /** `-F FILE`: use this ssh config instead of ~/.ssh/config. */
  sshConfigFile?: string;
  /** Which ssh client (default `auto`: OpenSSH where a ControlPath is set for the target). */
  sshClient?: SshClientChoice;
  /** Headless: trust an unknown host key and record it (hashed) in the known_hosts file. */
  acceptNewHostKey?: boolean;
  /** Present in the TUI; absent when headless (then unknown keys and passphrases are errors). */
  interactive?: InteractivePrompts;
  /** Where a person can answer a server's keyboard-interactive questions (a terminal, the cockpit).
   *  Asked on the first connection only: a reconnect that needs a person again fails
   *  (`login-needs-person`) instead of asking or retrying. Absent: such a server fails at once. */
  answerLogin?: AnswerLogin;
  /** Overrides ServerAliveInterval (ms; default from the ssh config, else 15000). */
  keepaliveIntervalMs?: number;
  /** Overrides ServerAliveCountMax (default from the ssh config, else 3). */
  keepaliveCountMax?: number;
  reconnect?: ReconnectOptions;
  /** How often `follow` sends its heartbeat (default 10000 ms). */
  heartbeatIntervalMs?: number;
  /** The remote follower exits after this long without a heartbeat (default 30000 ms). */
  heartbeatTimeoutMs?: number;
  /** How often a follower looks at the file (default 100 ms remote, 50 ms local). */
  followPollMs?: number;
  /** How often the remote follower looks at a quiet log (default 200 ms, at least followPollMs). */
  followQuietPollMs?: number;
  /** false: the remote follower reads the live tail itself, a few processes per change, instead of
   *  through its resident reader (follow-resident.ts; default true: where the target has perl). */
  followResident?: boolean;
  /** A follower's backlog at least this long crosses the wire compressed (default 1 MiB; 0:
   *  never), in members of 8 MiB growing to `followCompressChunkBytes` (128 MiB), compressed
   *  `followCompressJobs` at once (default 0: one fewer than the target's cores, 1 to 4), by the
   *  best codec for this client the target has (`auto`, see codecPreference), or the one named
   *  first (`'gzip'`: gzip only). ssh only. */
  followCompressMinBytes?: number;
  followCompressJobs?: number;
  followCompressChunkBytes?: number;
  followCompressCodec?: CodecChoice;
  /** Channels open at once on one connection (default 8; OpenSSH allows 10 sessions). */
  maxChannels?: number;
  /** TCP + handshake + auth deadline per attempt (default 20000 ms). */
  connectTimeoutMs?: number;
}
