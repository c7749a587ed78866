// Resolving an ssh target the way OpenSSH does. `ssh -G` is the faithful source (Include, Match,
// tokens, defaults); without an OpenSSH client we parse the config ourselves (Host blocks and
// Include, first value wins), which covers what people put in ~/.ssh/config for a head node.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, isAbsolute, join, basename } from 'node:path';
import { ConnectFailure } from './connect-failure.js';

export interface SshSettings {
  /** The name as the user gave it (alias or host): used in messages. */
  name: string;
  hostname: string;
  port: number;
  user: string;
  identityFiles: string[];
  identitiesOnly: boolean;
  /** Hops in order (first is dialled directly), each as given in ProxyJump. */
  proxyJump: string[];
  knownHostsFiles: string[];
  /** 'yes' | 'no' | 'ask' | 'accept-new' (OpenSSH's `true`/`false` normalised). */
  strictHostKeyChecking: string;
  hostKeyAlias: string | null;
  serverAliveIntervalS: number;
  serverAliveCountMax: number;
  connectTimeoutS: number | null;
  identityAgent: string | null;
  /** ControlPath as ssh -G expands it (null: none): an OpenSSH master may carry the connection. */
  controlPath: string | null;
  /** ControlPersist as ssh -G prints it (`no`, `yes`, seconds). */
  controlPersist: string;
}

/** Splits `user@host[:port]` (also `[v6]:port`) into parts; an alias comes back as host only. */
export function splitTarget(target: string): { user?: string; host: string; port?: number } {
  let rest = target;
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  let port: number | undefined;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (v6) {
    rest = v6[1];
    if (v6[2]) port = Number(v6[2]);
  } else {
    const m = /^([^:]+):(\d+)$/.exec(rest);
    if (m) {
      rest = m[1];
      port = Number(m[2]);
    }
  }
  if (!rest || /\s/.test(rest) || rest.startsWith('-'))
    throw new Error(`'${target}' is not an ssh target: use an alias from ~/.ssh/config or user@host[:port]`);
  return { user, host: rest, port };
}

const expandHome = (p: string): string =>
  p === '~' ? homedir() : p.startsWith('~/') ? join(homedir(), p.slice(2)) : p;

export async function resolveSshSettings(target: string, configFile?: string): Promise<SshSettings> {
  const parts = splitTarget(target);
  const kv = await sshDashG(target, parts, configFile).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return parseConfigFallback(parts.host, configFile ?? join(homedir(), '.ssh', 'config'));
    throw err;
  });
  return toSettings(target, parts, kv);
}

type KV = Map<string, string[]>;

function sshDashG(
  target: string,
  parts: { user?: string; host: string; port?: number },
  configFile?: string,
): Promise<KV> {
  const args = ['-G'];
  if (configFile) args.push('-F', configFile);
  if (parts.port !== undefined) args.push('-p', String(parts.port));
  args.push(parts.user !== undefined ? `${parts.user}@${parts.host}` : parts.host);
  return new Promise((resolve, reject) => {
    execFile('ssh', args, { encoding: 'utf8', timeout: 10_000 }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(err);
      // ssh -G only reads files: past its time limit the machine is overloaded, which may pass.
      if (err && err.killed) {
        const facts = { alias: target, sshConfigFile: configFile };
        return reject(
          new ConnectFailure(
            'timeout',
            `cannot resolve ssh settings for '${parts.host}': ssh -G did not answer within 10 s`,
            facts,
          ),
        );
      }
      if (err)
        return reject(new Error(`cannot resolve ssh settings for '${parts.host}': ${stderr.trim() || err.message}`));
      const kv: KV = new Map();
      for (const line of stdout.split('\n')) {
        const sp = line.indexOf(' ');
        if (sp <= 0) continue;
        const k = line.slice(0, sp).toLowerCase();
        kv.set(k, [...(kv.get(k) ?? []), line.slice(sp + 1)]);
      }
      resolve(kv);
    });
  });
}

function toSettings(name: string, parts: { user?: string; host: string; port?: number }, kv: KV): SshSettings {
  const one = (k: string): string | undefined => kv.get(k)?.[0];
  const num = (k: string, d: number): number => {
    const v = Number(one(k));
    return Number.isFinite(v) ? v : d;
  };
  const strict = (one('stricthostkeychecking') ?? 'ask').toLowerCase();
  const pj = one('proxyjump');
  const ct = one('connecttimeout');
  const agent = one('identityagent');
  return {
    name,
    hostname: one('hostname') ?? parts.host,
    port: parts.port ?? num('port', 22),
    user: parts.user ?? one('user') ?? userInfo().username,
    identityFiles: (kv.get('identityfile') ?? ['~/.ssh/id_rsa', '~/.ssh/id_ecdsa', '~/.ssh/id_ed25519']).map(
      expandHome,
    ),
    identitiesOnly: (one('identitiesonly') ?? 'no').toLowerCase() === 'yes',
    proxyJump:
      pj && pj.toLowerCase() !== 'none'
        ? pj
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    knownHostsFiles: [
      ...(kv.get('userknownhostsfile') ?? ['~/.ssh/known_hosts ~/.ssh/known_hosts2']).flatMap((v) => v.split(/\s+/)),
      ...(kv.get('globalknownhostsfile') ?? ['/etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2']).flatMap((v) =>
        v.split(/\s+/),
      ),
    ]
      .filter(Boolean)
      .map(expandHome),
    strictHostKeyChecking: strict === 'true' ? 'yes' : strict === 'false' || strict === 'off' ? 'no' : strict,
    hostKeyAlias: one('hostkeyalias') && one('hostkeyalias') !== 'none' ? one('hostkeyalias')! : null,
    serverAliveIntervalS: num('serveraliveinterval', 0),
    serverAliveCountMax: num('serveralivecountmax', 3),
    connectTimeoutS: ct && ct !== 'none' ? Number(ct) : null,
    identityAgent: agentPath(agent),
    controlPath: one('controlpath') && one('controlpath') !== 'none' ? expandHome(one('controlpath')!) : null,
    controlPersist: (one('controlpersist') ?? 'no').toLowerCase(),
  };
}

/** IdentityAgent: `none`, a path, or the name of an environment variable (`SSH_AUTH_SOCK`, `$VAR`). */
function agentPath(v: string | undefined): string | null {
  if (!v) return null;
  if (v.toLowerCase() === 'none') return 'none';
  if (v === 'SSH_AUTH_SOCK') return process.env.SSH_AUTH_SOCK ?? null;
  if (v.startsWith('$')) return process.env[v.slice(1).replace(/^\{(.*)\}$/, '$1')] ?? null;
  return expandHome(v);
}

/** OpenSSH pattern: `*`, `?`, case-insensitive; a list matches if some pattern does and no `!` one. */
export function matchPatternList(name: string, list: string[]): boolean {
  let matched = false;
  for (const raw of list) {
    const neg = raw.startsWith('!');
    const pat = neg ? raw.slice(1) : raw;
    const re = new RegExp(
      '^' +
        pat
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.') +
        '$',
      'i',
    );
    if (re.test(name)) {
      if (neg) return false;
      matched = true;
    }
  }
  return matched;
}

/** Minimal ~/.ssh/config reader for machines without an OpenSSH client: Host blocks, Include
 *  (relative to ~/.ssh, `*` globs in the last path element), first obtained value wins. */
export function parseConfigFallback(host: string, file: string): KV {
  const kv: KV = new Map();
  const multi = new Set(['identityfile']);
  const visit = (path: string, depth: number): void => {
    if (depth > 16) return;
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return;
    }
    let active = true;
    for (const rawLine of text.split('\n')) {
      const line = rawLine.trim();
      if (!line || line.startsWith('#')) continue;
      const m = /^(\S+?)(?:\s*=\s*|\s+)(.*)$/.exec(line);
      if (!m) continue;
      const key = m[1].toLowerCase();
      const value = m[2].replace(/^"(.*)"$/, '$1');
      if (key === 'host') active = matchPatternList(host, value.split(/\s+/));
      else if (key === 'match') active = /^all$/i.test(value);
      else if (!active) continue;
      else if (key === 'include')
        for (const inc of value.split(/\s+/)) for (const f of globOne(expandHome(inc))) visit(f, depth + 1);
      else if (multi.has(key)) kv.set(key, [...(kv.get(key) ?? []), value]);
      else if (!kv.has(key)) kv.set(key, [value.replace(/%h/g, host)]);
    }
  };
  visit(file, 0);
  return kv;
}

function globOne(p: string): string[] {
  const full = isAbsolute(p) ? p : join(homedir(), '.ssh', p);
  const base = basename(full);
  if (!base.includes('*') && !base.includes('?')) return [full];
  try {
    return readdirSync(dirname(full))
      .filter((f) => matchPatternList(f, [base]))
      .sort()
      .map((f) => join(dirname(full), f));
  } catch {
    return [];
  }
}

/** Resolves the target and its jump hosts (each resolved with the same config file). */
export async function resolveChain(target: string, configFile?: string): Promise<SshSettings[]> {
  const last = await resolveSettings(target, configFile);
  const hops: SshSettings[] = [];
  for (const hop of last.proxyJump) {
    const s = await resolveSettings(hop, configFile);
    // A hop's own ProxyJump is ignored by OpenSSH when it is part of a chain: the chain decides.
    hops.push({ ...s, proxyJump: [] });
  }
  return [...hops, last];
}

/** A target that is not one, or a config ssh -G refuses, will not resolve on a retry either. */
async function resolveSettings(target: string, configFile?: string): Promise<SshSettings> {
  try {
    return await resolveSshSettings(target, configFile);
  } catch (err) {
    if (err instanceof ConnectFailure) throw err;
    throw new ConnectFailure('ssh-settings', (err as Error).message, { alias: target, sshConfigFile: configFile });
  }
}
