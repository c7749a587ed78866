// The sentinel's digest of its run (issue #30): the log's history as an attach needs it, kept next to
// the run on the target so that a cockpit attaching receives the digest and filters only the log
// after it, instead of filtering the whole log: the time to a full dashboard stops growing with the
// log's bytes (it grows with the run's records, ~15 MB gzipped for a 1.1 GB log).
//
// What it holds is exactly what a backfill would send (backfill-filter.ts's kept lines, gzipped, one
// gzip member per update), so a digest and the log after it are read by the one reader that goes on
// following: the records, and from them the series, the alert history and every figure, are the
// same as a full read's by construction. The run's facts are the config's (read at attach as now).
//
// The file (`sentinel-digest` in the run dir, 0600, written to a temporary file and renamed): a
// header line of HEADER_BYTES, `awrl-digest V KEYS OFFSET INODE HEAD SEAM GZBYTES SHA256`, then
// GZBYTES of gzip. OFFSET is where the kept lines end in the log (a line's end); INODE HEAD SEAM
// its identity there (the filter script's: inode, cksums of the first 4 KiB (all of it, a log
// younger than that at OFFSET) and of the 4 KiB before OFFSET), so a log rotated, replaced or truncated since is seen on the target and the
// digest is not used; KEYS the sha256 of the filter's key patterns (other keys, other lines);
// SHA256 that of the gzip bytes (a damaged digest is not used, and the sentinel rebuilds it).
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { SNAPSHOT_VERSION } from '../watch/watch-snapshot.js';

export const DIGEST_FILE = 'sentinel-digest';
/** The watch's state at the digest's offset (src/watch/watch-snapshot.ts), beside it, with a header
 *  of the same form (`awrl-snapshot V …`, V its SNAPSHOT_VERSION): its bytes are the state's gzip. */
export const SNAPSHOT_FILE = 'sentinel-snapshot';
export const DIGEST_VERSION = 1;
/** The header line's length, newline included (padded with spaces): the gzip starts after it. */
export const DIGEST_HEADER_BYTES = 256;
/** With a local cache of the same log, the digest is sent only when it covers this much more of it
 *  (re-sending its MiBs for a few MiB of log is slower than filtering them). */
export const DIGEST_MIN_GAIN_BYTES = 64 * 1024 * 1024;

export interface DigestHeader {
  /** sha256 of the filter's key patterns. */
  keys: string;
  offset: number;
  /** `INODE HEAD SEAM` of the log at `offset`, as the filter script prints it. */
  identity: string;
  gzBytes: number;
  sha256: string;
}

/** The run's digest beside its log (RUN_DIR/stdout.log → RUN_DIR/sentinel-digest). */
export function digestPathFor(logPath: string): string {
  return `${dirname(logPath)}/${DIGEST_FILE}`;
}

/** The run's watch snapshot beside its log (RUN_DIR/sentinel-snapshot). */
export function snapshotPathFor(logPath: string): string {
  return `${dirname(logPath)}/${SNAPSHOT_FILE}`;
}

/** The digest's header, or the snapshot's (the same fields: its bytes for GZBYTES). */
export interface HeaderKind {
  magic: string;
  version: number;
}
export const DIGEST_KIND: HeaderKind = { magic: 'awrl-digest', version: DIGEST_VERSION };
export const SNAPSHOT_KIND: HeaderKind = { magic: 'awrl-snapshot', version: SNAPSHOT_VERSION };

/** The keys' hash of a digest: that of backfill-filter.ts's `keyPatterns(keys)`. */
export function keysHash(patterns: string): string {
  return createHash('sha256').update(patterns).digest('hex');
}

export function formatDigestHeader(h: DigestHeader, kind = DIGEST_KIND): Buffer {
  const line = [kind.magic, kind.version, h.keys, h.offset, h.identity, h.gzBytes, h.sha256].join(' ');
  if (line.length >= DIGEST_HEADER_BYTES) throw new Error('digest header too long');
  return Buffer.from(`${line.padEnd(DIGEST_HEADER_BYTES - 1, ' ')}\n`, 'latin1');
}

/** The header of a digest (its first DIGEST_HEADER_BYTES), or null: not a digest of this version. */
export function parseDigestHeader(b: Buffer, kind = DIGEST_KIND): DigestHeader | null {
  if (b.length < DIGEST_HEADER_BYTES || b[DIGEST_HEADER_BYTES - 1] !== 0x0a) return null;
  const f = b
    .subarray(0, DIGEST_HEADER_BYTES - 1)
    .toString('latin1')
    .trim()
    .split(/ +/);
  const [magic, v, keys, offset, ino, head, seam, gzBytes, sha256] = f;
  const num = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : NaN);
  if (f.length !== 9 || magic !== kind.magic || v !== String(kind.version)) return null;
  if (!/^[0-9a-f]{64}$/.test(keys!) || !/^[0-9a-f]{64}$/.test(sha256!)) return null;
  if (!Number.isSafeInteger(num(offset)) || !Number.isSafeInteger(num(gzBytes)) || !num(ino) || !head || !seam)
    return null;
  return {
    keys: keys!,
    offset: num(offset),
    identity: `${ino} ${head} ${seam}`,
    gzBytes: num(gzBytes),
    sha256: sha256!,
  };
}

/** The target-side check of a digest, spliced into the backfill filter (backfill-filter.ts) once
 *  FROM (a local cache's end, or 0) is known: $6 the digest, $7 the keys' hash, $8 the gain it must
 *  bring over FROM. A digest of this version, these keys, this log (the identity at its OFFSET), whose
 *  gzip's sha256 matches, covering more of the log: FROM becomes its OFFSET and DGZ its gzip's size
 *  (read from fd 4, opened once: a digest renamed into place meanwhile is not mixed in). */
export const DIGEST_CHECK = [
  'DGZ=""; D="${6:-}"; DKEYS="${7:-}"; GAIN="${8:-0}"',
  `if [ -n "$D" ] && [ -f "$D" ] && exec 4<"$D"; then`,
  '  DF="/proc/$$/fd/4"; [ -r "$DF" ] || DF="$D"',
  `  read -r DM DV DK DOFF DINO DHEAD DSEAM DSIZE DSHA DX < <(head -c ${DIGEST_HEADER_BYTES} "$DF")`,
  `  if [ "$DM $DV" = "awrl-digest ${DIGEST_VERSION}" ] && [ "$DK" = "$DKEYS" ] && [ -z "$DX" ] &&`,
  '     [[ "$DOFF" =~ ^[0-9]+$ && "$DSIZE" =~ ^[0-9]+$ ]] && [ "$DOFF" -le "$CUT" ] && [ "$DOFF" -gt "$FROM" ] &&',
  '     { [ "$FROM" -eq 0 ] || [ $((DOFF - FROM)) -gt "$GAIN" ]; } &&',
  '     { at "$DOFF"; [ "$INO $H $R" = "$DINO $DHEAD $DSEAM" ]; } &&',
  `     [ "$(tail -c +${DIGEST_HEADER_BYTES + 1} "$DF" | head -c "$DSIZE" | sha256sum)" = "$DSHA  -" ]; then`,
  '    FROM=$DOFF; DGZ=$DSIZE',
  '  fi',
  'fi',
].join('\n');

/** The check of the run's watch snapshot ($10; spliced before DIGEST_CHECK): of this version, these
 *  keys ($7), this log (the identity at its OFFSET), whose bytes match their sum: FROM becomes its
 *  OFFSET and SNAP its size (fd 5), whatever a cache covers (restoring it is cheaper than reading
 *  any history), and the digest, which ends no later, is not sent. One there but not usable: SWHY
 *  says why in a word (SNAPSHOT_REFUSED). */
export const SNAPSHOT_CHECK = [
  'SNAP=""; SWHY=""; S="${10:-}"',
  `if [ -n "$S" ] && [ -f "$S" ] && exec 5<"$S"; then`,
  '  SF="/proc/$$/fd/5"; [ -r "$SF" ] || SF="$S"',
  `  read -r SM SV SK SOFF SINO SHEAD SSEAM SSIZE SSHA SX < <(head -c ${DIGEST_HEADER_BYTES} "$SF")`,
  '  if [ "$SM" != awrl-snapshot ] || [ -n "$SX" ] || ! [[ "$SOFF" =~ ^[0-9]+$ && "$SSIZE" =~ ^[0-9]+$ ]]; then',
  '    SWHY=unreadable',
  `  elif [ "$SV" != ${SNAPSHOT_VERSION} ]; then SWHY=version`,
  '  elif [ "$SK" != "${7:-}" ]; then SWHY=keys',
  '  elif [ "$SOFF" -gt "$CUT" ] || [ "$SOFF" -eq 0 ] ||',
  '       { at "$SOFF"; [ "$INO $H $R" != "$SINO $SHEAD $SSEAM" ]; }; then SWHY=another-log',
  `  elif [ "$(tail -c +${DIGEST_HEADER_BYTES + 1} "$SF" | head -c "$SSIZE" | sha256sum)" != "$SSHA  -" ]; then`,
  '    SWHY=damaged',
  '  else FROM=$SOFF; SNAP=$SSIZE; fi',
  'fi',
].join('\n');

/** What SNAPSHOT_CHECK's word means, for the line an attach says. */
export const SNAPSHOT_REFUSED: Record<string, string> = {
  unreadable: 'it does not parse',
  version: `it is of another version than ${SNAPSHOT_VERSION}`,
  keys: 'it was made for other keys',
  'another-log': 'it is not this log’s: rotated, replaced or truncated',
  damaged: 'its bytes do not match their sum',
};

/** The snapshot's bytes, or the digest's gzip, after the filter's header line (only when the checks
 *  above took it); $9 = 1 (digest only): without a usable digest nothing is filtered (the caller
 *  reads the whole log). */
export const DIGEST_SEND = [
  `if [ -n "$SNAP" ]; then tail -c +${DIGEST_HEADER_BYTES + 1} "$SF" | head -c "$SNAP"`,
  `elif [ -n "$DGZ" ]; then tail -c +${DIGEST_HEADER_BYTES + 1} "$DF" | head -c "$DGZ"`,
  'elif [ "${9:-}" = 1 ]; then exit 0; fi',
].join('\n');
