// known_hosts, as OpenSSH reads it: plain and hashed (`|1|salt|hmac`) host fields, comma lists
// with `*`, `?` and `!negation`, `[host]:port` for non-22 ports, `@revoked` lines, several files.
// No maintained npm package does this; it is small enough to own.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { matchPatternList } from './ssh-config.js';

export type HostKeyVerdict =
  | { status: 'ok' }
  | { status: 'unknown' }
  | { status: 'mismatch'; file: string; lineNo: number; line: string }
  | { status: 'revoked'; file: string; lineNo: number; line: string };

/** `SHA256:` + unpadded base64 of the key blob's SHA-256, as `ssh-keygen -l` prints it. */
export function fingerprint(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

/** The key type named inside an SSH public key blob (`ssh-ed25519`, `ssh-rsa`, ...). */
export function keyType(blob: Buffer): string {
  if (blob.length < 4) return '';
  const len = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + len).toString('latin1');
}

export function lookupToken(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function hostFieldMatches(field: string, token: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(token).digest('base64') === hash;
  }
  return matchPatternList(token, field.split(','));
}

interface Entry {
  file: string;
  lineNo: number;
  line: string;
  marker: string | null;
  type: string;
  blob: Buffer;
}

function entriesFor(files: string[], token: string): Entry[] {
  const out: Entry[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    text.split('\n').forEach((line, i) => {
      const fields = line.trim().split(/\s+/);
      if (!fields[0] || fields[0].startsWith('#')) return;
      const marker = fields[0].startsWith('@') ? fields.shift()!.toLowerCase() : null;
      if (fields.length < 3 || marker === '@cert-authority') return;
      if (!hostFieldMatches(fields[0], token)) return;
      out.push({
        file,
        lineNo: i + 1,
        line: line.trim(),
        marker,
        type: fields[1],
        blob: Buffer.from(fields[2], 'base64'),
      });
    });
  }
  return out;
}

/** Key types recorded for this host: used to ask the server for a key we can check. */
export function knownKeyTypes(files: string[], host: string, port: number): string[] {
  return [
    ...new Set(
      entriesFor(files, lookupToken(host, port))
        .filter((e) => e.marker === null)
        .map((e) => e.type),
    ),
  ];
}

export function checkHostKey(files: string[], host: string, port: number, blob: Buffer): HostKeyVerdict {
  const entries = entriesFor(files, lookupToken(host, port));
  const revoked = entries.find((e) => e.marker === '@revoked' && e.blob.equals(blob));
  if (revoked) return { status: 'revoked', file: revoked.file, lineNo: revoked.lineNo, line: revoked.line };
  const plain = entries.filter((e) => e.marker === null);
  if (plain.some((e) => e.blob.equals(blob))) return { status: 'ok' };
  // A recorded key of the same type that differs is the classic "host identification has
  // changed"; a host known only under other key types is refused as well (we asked the server
  // for the known types first, so a different one means the server no longer has them).
  const other = plain.find((e) => e.type === keyType(blob)) ?? plain[0];
  if (other) return { status: 'mismatch', file: other.file, lineNo: other.lineNo, line: other.line };
  return { status: 'unknown' };
}

/** Appends a hashed line (`|1|salt|hmac type key`), creating the file and its directory. */
export function addHostKey(file: string, host: string, port: number, blob: Buffer): string {
  const salt = randomBytes(20);
  const hmac = createHmac('sha1', salt).update(lookupToken(host, port)).digest('base64');
  const line = `|1|${salt.toString('base64')}|${hmac} ${keyType(blob)} ${blob.toString('base64')}`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let prefix = '';
  try {
    const cur = readFileSync(file, 'utf8');
    if (cur.length > 0 && !cur.endsWith('\n')) prefix = '\n';
  } catch {
    /* a new file */
  }
  appendFileSync(file, `${prefix}${line}\n`, { mode: 0o600 });
  return line;
}

/** ssh2 algorithm names that produce a host key of each known_hosts key type. */
export function hostKeyAlgorithmsFor(types: string[]): string[] {
  const map: Record<string, string[]> = {
    'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
  };
  return types.flatMap((t) => map[t] ?? [t]);
}
