// One ssh2 connection attempt to a target, through its ProxyJump chain if any: resolve each hop,
// authenticate like OpenSSH (agent, then identity files), verify host keys against known_hosts.
// The returned chain is treated as ONE connection: when any link closes, the whole attempt is over.
// ssh2 is CommonJS: under Node's ESM loader only its default export is reliable.
import ssh2, { type Client } from 'ssh2';
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import type { AnswerLogin, OpenTransportOptions } from './options.js';

const { utils } = ssh2;
import type { SshSettings } from './ssh-config.js';
import { addHostKey, checkHostKey, fingerprint, hostKeyAlgorithmsFor, knownKeyTypes } from './known-hosts.js';
import { ConnectFailure, type ConnectFacts } from './connect-failure.js';
import { KeyboardLogin, loginHandler } from './ssh-login.js';

export { ConnectFailure } from './connect-failure.js';

export interface ConnectContext {
  opts: OpenTransportOptions;
  /** Passphrases asked once and reused for reconnects (null: the user declined). */
  passphrases: Map<string, string | null>;
  /** The transport was connected before: this attempt reconnects, and asks no person (a server's
   *  keyboard-interactive questions are answered once per connection). */
  connectedOnce: boolean;
  /** This attempt was asked for by the person (`loginAgain`): its questions go here, even on a
   *  reconnect. */
  personAnswer?: AnswerLogin;
}

export interface Chain {
  /** The client talking to the target (last hop). */
  client: Client;
  /** All clients, bastions first. */
  all: Client[];
  settings: SshSettings;
}

const SSH2_DEFAULT_HOST_KEYS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** What is known of one link before it is dialled: who, where, through which hop, with which config. */
function linkFacts(s: SshSettings, ctx: ConnectContext, jumpHost?: string): ConnectFacts {
  return {
    alias: s.name,
    user: s.user,
    host: s.hostname,
    port: s.port,
    jumpHost,
    hostKeyAlias: s.hostKeyAlias ?? undefined,
    sshConfigFile: ctx.opts.sshConfigFile,
  };
}

export async function connectChain(chain: SshSettings[], ctx: ConnectContext): Promise<Chain> {
  const all: Client[] = [];
  try {
    let sock: Duplex | undefined;
    for (let i = 0; i < chain.length; i++) {
      // Every link after the first is dialled by the hop before it (ProxyJump): that hop is its jumpHost.
      const jumpHost = i > 0 ? chain[i - 1].name : undefined;
      const client = await connectOne(chain[i], ctx, sock, jumpHost);
      all.push(client);
      if (i + 1 < chain.length) sock = await forward(client, chain[i + 1], linkFacts(chain[i + 1], ctx, chain[i].name));
    }
  } catch (err) {
    for (const c of all) c.end();
    throw err;
  }
  return { client: all[all.length - 1], all, settings: chain[chain.length - 1] };
}

function forward(via: Client, next: SshSettings, facts: ConnectFacts): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    via.forwardOut('127.0.0.1', 0, next.hostname, next.port, (err, stream) => {
      if (err)
        reject(
          new ConnectFailure(
            'unreachable',
            `jump host could not open a connection to ${next.hostname}:${next.port}: ${err.message}`,
            facts,
          ),
        );
      else resolve(stream);
    });
  });
}

/** A key file authMethods could not use, and why (`encrypted`: no passphrase was given for it). */
interface SkippedKey {
  file: string;
  encrypted: boolean;
  text: string;
}

async function authMethods(
  s: SshSettings,
  ctx: ConnectContext,
  facts: ConnectFacts,
): Promise<{ methods: object[]; skipped: SkippedKey[] }> {
  const methods: object[] = [];
  const skipped: SkippedKey[] = [];
  const agent = s.identityAgent === 'none' ? null : (s.identityAgent ?? process.env.SSH_AUTH_SOCK ?? null);
  if (agent && !s.identitiesOnly) methods.push({ type: 'agent', username: s.user, agent });
  for (const file of s.identityFiles) {
    let buf: Buffer;
    try {
      buf = readFileSync(file);
    } catch {
      continue; // OpenSSH silently skips default identity files that do not exist
    }
    let parsed = utils.parseKey(buf);
    let passphrase: string | undefined;
    if (parsed instanceof Error && /encrypted|passphrase/i.test(parsed.message)) {
      if (!ctx.passphrases.has(file)) {
        ctx.passphrases.set(file, ctx.opts.interactive ? await ctx.opts.interactive.askPassphrase(file) : null);
      }
      const pp = ctx.passphrases.get(file);
      if (pp == null) {
        skipped.push({
          file,
          encrypted: true,
          text: `${file} is encrypted${ctx.opts.interactive ? ' (no passphrase given)' : ''}`,
        });
        continue;
      }
      parsed = utils.parseKey(buf, pp);
      if (parsed instanceof Error) {
        ctx.passphrases.delete(file); // ask again next time
        throw new ConnectFailure('wrong-passphrase', `wrong passphrase for ${file}`, { ...facts, keyFile: file });
      }
      passphrase = pp;
    }
    if (parsed instanceof Error) {
      skipped.push({ file, encrypted: false, text: `${file}: ${parsed.message}` });
      continue;
    }
    methods.push({ type: 'publickey', username: s.user, key: buf, passphrase });
  }
  if (agent && s.identitiesOnly) methods.push({ type: 'agent', username: s.user, agent });
  return { methods, skipped };
}

function connectOne(s: SshSettings, ctx: ConnectContext, sock?: Duplex, jumpHost?: string): Promise<Client> {
  return (async () => {
    const facts = linkFacts(s, ctx, jumpHost);
    const { methods, skipped } = await authMethods(s, ctx, facts);
    const who = `${s.user}@${s.hostname}:${s.port}`;
    const keyHost = s.hostKeyAlias ?? s.hostname;
    const keyPort = s.hostKeyAlias ? 22 : s.port;
    const known = knownKeyTypes(s.knownHostsFiles, keyHost, keyPort);
    const preferred = hostKeyAlgorithmsFor(known).filter((a) => SSH2_DEFAULT_HOST_KEYS.includes(a));
    const serverHostKey = [...preferred, ...SSH2_DEFAULT_HOST_KEYS.filter((a) => !preferred.includes(a))];
    const keepaliveMs =
      ctx.opts.keepaliveIntervalMs ?? (s.serverAliveIntervalS > 0 ? s.serverAliveIntervalS * 1000 : 15_000);
    const countMax = ctx.opts.keepaliveCountMax ?? s.serverAliveCountMax;

    return new Promise<Client>((resolve, reject) => {
      const client = new ssh2.Client();
      let hostKeyError: ConnectFailure | null = null;
      let decided: { blob: Buffer; ok: boolean } | null = null;
      let settled = false;
      const fail = (err: Error): void => {
        if (settled) return;
        settled = true;
        client.end();
        reject(err);
      };
      const keyboard = new KeyboardLogin({
        target: s.name,
        user: s.user,
        answer: ctx.personAnswer ?? ctx.opts.answerLogin,
        reconnect: ctx.connectedOnce && !ctx.personAnswer,
        facts,
        fail,
      });

      const verify = async (blob: Buffer): Promise<boolean> => {
        const fp = fingerprint(blob);
        const v = checkHostKey(s.knownHostsFiles, keyHost, keyPort, blob);
        if (v.status === 'ok') return true;
        if (v.status === 'mismatch' || v.status === 'revoked') {
          const what = v.status === 'revoked' ? 'is REVOKED' : 'does NOT match the recorded one';
          hostKeyError = new ConnectFailure(
            v.status === 'revoked' ? 'host-key-revoked' : 'host-key-mismatch',
            `host key of ${s.name} (${keyHost}:${keyPort}) ${what}: the server offered ${fp}, ` +
              `${v.file}:${v.lineNo} says "${v.line}". This may be an attack; if the host was really re-keyed, ` +
              `remove that line (ssh-keygen -R '${keyPort === 22 ? keyHost : `[${keyHost}]:${keyPort}`}' -f ${v.file}) and connect again.`,
            { ...facts, fingerprint: fp, knownHostsFile: v.file, knownHostsLine: v.lineNo },
          );
          return false;
        }
        const file = s.knownHostsFiles[0];
        const strictAccepts = s.strictHostKeyChecking === 'accept-new' || s.strictHostKeyChecking === 'no';
        let accept = ctx.opts.acceptNewHostKey === true || strictAccepts;
        if (!accept && ctx.opts.interactive && s.strictHostKeyChecking !== 'yes') {
          accept = await ctx.opts.interactive.askHostKey({
            host: keyPort === 22 ? keyHost : `[${keyHost}]:${keyPort}`,
            fingerprint: fp,
          });
        }
        if (!accept) {
          hostKeyError = new ConnectFailure(
            'host-key-unknown',
            `host key of ${s.name} (${keyHost}:${keyPort}) is unknown: ${fp}. Check this fingerprint with the host's ` +
              `administrator, then connect again with --accept-new-host-key (or add the key to ${file}).`,
            { ...facts, fingerprint: fp, knownHostsFile: file },
          );
          return false;
        }
        if (file) addHostKey(file, keyHost, keyPort, blob);
        return true;
      };

      client.once('ready', () => {
        if (settled) return;
        settled = true;
        resolve(client);
      });
      client.on('error', (err: Error & { level?: string; code?: string }) => {
        if (settled) return;
        if (hostKeyError) return fail(hostKeyError);
        if (err.level === 'client-authentication') {
          if (keyboard.answered) return fail(keyboard.refused());
          const tried = [...methods.map((m) => ((m as { type: string }).type === 'agent' ? 'ssh-agent' : 'key'))];
          const extra = skipped.length ? ` Skipped: ${skipped.map((k) => k.text).join('; ')}.` : '';
          const encrypted = skipped.find((k) => k.encrypted);
          const hint = encrypted
            ? ' Load the encrypted key into ssh-agent (ssh-add) or run the cockpit interactively to type its passphrase.'
            : ' Check User and IdentityFile in your ssh config, or add your key with ssh-add.';
          return fail(
            new ConnectFailure(
              encrypted ? 'key-encrypted' : 'auth-failed',
              `authentication to ${who} failed (tried ${tried.length ? tried.join(', ') : 'nothing: no usable key or agent'}).${extra}${hint}`,
              { ...facts, keyFile: encrypted?.file },
            ),
          );
        }
        const code = err.code ? ` (${err.code})` : '';
        // ssh2's levels: client-socket / client-dns (no TCP connection), client-timeout (no
        // handshake in time); a server hanging up first is a 'protocol' error of its own words;
        // anything else is a failed handshake (no common algorithm, a protocol error).
        const kind =
          err.level === 'client-timeout'
            ? 'timeout'
            : err.level === 'client-socket' || err.level === 'client-dns'
              ? 'unreachable'
              : /connection lost before handshake/i.test(err.message)
                ? 'closed'
                : 'handshake-failed';
        // Said once: Node's socket words ("connect ECONNREFUSED 127.0.0.1:1") only repeat the errno
        // and the address, and a target written as its address (qa@127.0.0.1:1) needs no "at".
        const addr = `${s.hostname}:${s.port}`;
        const named = s.name === addr || s.name.endsWith(`@${addr}`) ? s.name : `${s.name} at ${addr}`;
        const echoesErrno = !!err.code && new RegExp(`^\\w+ ${err.code}( \\S+)?$`).test(err.message);
        const detail = echoesErrno ? '' : `: ${err.message}`;
        fail(
          new ConnectFailure(kind, `cannot reach ${named}${code}${detail}. Is the host up and the port right?`, {
            ...facts,
            errno: err.code,
          }),
        );
      });
      client.once('close', () =>
        fail(
          hostKeyError ??
            new ConnectFailure(
              'closed',
              `connection to ${s.name} at ${s.hostname}:${s.port} closed during the handshake`,
              facts,
            ),
        ),
      );

      try {
        client.connect({
          host: s.hostname,
          port: s.port,
          sock,
          username: s.user,
          authHandler: loginHandler(methods, keyboard) as never,
          readyTimeout: ctx.opts.connectTimeoutMs ?? (s.connectTimeoutS ? s.connectTimeoutS * 1000 : 20_000),
          keepaliveInterval: keepaliveMs,
          keepaliveCountMax: countMax,
          algorithms: { serverHostKey: serverHostKey as never },
          hostVerifier: ((blob: Buffer, cb: (ok: boolean) => void) => {
            // ssh2 asks again on every rekey: answer from the decision made for this connection.
            if (decided && decided.blob.equals(blob)) return cb(decided.ok);
            verify(blob).then(
              (ok) => {
                decided = { blob, ok };
                cb(ok);
              },
              (err: Error) => {
                hostKeyError =
                  err instanceof ConnectFailure
                    ? err
                    : new ConnectFailure(
                        'ssh-settings',
                        `cannot check the host key of ${s.name}: ${err.message}`,
                        facts,
                      );
                cb(false);
              },
            );
          }) as never,
        });
      } catch (err) {
        // connect() throws synchronously on an encrypted key it cannot use, or settings it refuses.
        fail(
          new ConnectFailure(
            /encrypted|passphrase/i.test((err as Error).message) ? 'key-encrypted' : 'ssh-settings',
            `cannot connect to ${who}: ${(err as Error).message}`,
            facts,
          ),
        );
      }
    });
  })();
}
