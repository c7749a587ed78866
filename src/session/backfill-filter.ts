// The target-side filter of a backfill: what of the log's history crosses the network. It keeps
// every line that is no stats-table row or separator (record headers, tracebacks, worker lines,
// the table borders the reader needs to close a table) and the rows holding a key the cockpit
// uses; separators and other rows stay on the target. The same lines as the awk filter it replaces
// (byte for byte: test/ui/backfill-filter.test.ts), but as one `LC_ALL=C grep` pattern list, which
// GNU grep runs as a DFA at ~0.5 GB/s a core where awk ran at ~0.1 GB/s (`npm run bench -- attach`).
// The output is gzipped (`gzip -1`, everywhere; 173 MB of kept lines of a 1.1 GB log become 15 MB).
import { ALERT_KEYS } from '../metrics/index.js';
import { PANEL_SERIES } from './panel-series.js';
import { DIGEST_CHECK, DIGEST_SEND, SNAPSHOT_CHECK } from './run-digest.js';

/** Keys read beyond the panels: compare's summary and a pinned baseline count the evaluation rounds. */
export const BEYOND_PANELS = ['test_rollout/trajectory/round'];

/** Keys whose history the cockpit draws or evaluates (matched as substrings of a table row, so a
 *  prefix stands for every key it starts: all timeperf/* phases, all version_stats/*): what the
 *  panels read (panel-series.ts, the one list), what the alert rules read, and BEYOND_PANELS. The store's own
 *  series (derived/*, from the step records) are no key of the log. */
export const BACKFILL_KEYS: string[] = [
  ...new Set([...Object.values(PANEL_SERIES).flat(), ...BEYOND_PANELS, ...Object.values(ALERT_KEYS)]),
].filter((k) => !k.startsWith('derived/'));

/** The keys as basic regular expressions, one a line (grep reads a newline-separated list). */
export function keyPatterns(keys: readonly string[] = BACKFILL_KEYS): string {
  return keys.map((k) => k.replace(/[.[\]*^$\\]/g, (c) => `\\${c}`)).join('\n');
}

/** A line is a table row (`│`, e2 94 82) or separator (`├`, e2 94 9c) by its first three bytes:
 *  every other line is kept (empty ones too), as a list of patterns on the line's start. Written
 *  with bash's $'…' so the script's text stays ASCII over ssh. */
const NOT_TABLE_ROW = String.raw`-e '^$' -e $'^[^\342]' -e $'^\342[^\224]' -e $'^\342\224[^\202\234]' -e $'^\342$' -e $'^\342\224$'`;

/** $1 where the kept part ends (a line's end), $2 file, $3 where it starts (0, or a cached
 *  backfill's end), $4 the identity the cache expects there, $5 the key patterns; optionally $6
 *  the run's digest, $7 the keys' hash, $8 its least gain (run-digest.ts's DIGEST_CHECK).
 *  stdout: `FROM INODE HEAD SEAM` (FROM: $3, or 0 when the log is not the one the cache saw, or
 *  the digest's end when it is used: then ` digest GZBYTES` follows; the identity of the log at
 *  $1: its inode, cksums of its first 4 KiB (or $1 bytes) and of the 4 KiB before $1), then the digest's gzip
 *  if used; with $10, the run's watch snapshot: ` snapshot BYTES`, its bytes instead, then the gzipped kept lines of [FROM, $1) (one gzip stream: members concatenated). stderr: `awrl-progress N` (bytes of the file read,
 *  from /proc: silent where there is none), 4 times a second. */
export const FILTER_SCRIPT = [
  'CUT="$1"; F="$2"; FROM="$3"; WANT="$4"; KEYS="$5"',
  'exec 3<"$F" || exit 3',
  'ino() { ls -di -- "$F" | { read -r i _; echo "$i"; }; }',
  'ck() { head -c "$1" | cksum | { read -r c _; echo "$c"; }; }',
  'seam() { if [ "$1" -gt 4096 ]; then tail -c +$(($1 - 4095)) -- "$F" | ck 4096; else ck "$1" < "$F"; fi; }',
  // The log's identity, taken once (each command is a fork: tens of ms on a busy host). The head
  // is of the first 4 KiB the offset covers: a log younger than 4 KiB at a digest's offset grows
  // on, and is still the same log. `at X` sets H and R to the head's and the seam's sums at X (X is
  // never past the cut), without a subshell when X is the cut.
  'HEAD=$(ck $((CUT < 4096 ? CUT : 4096)) < "$F"); INO=$(ino); SEAM=$(seam "$CUT")',
  'at() {',
  '  if [ "$1" = "$CUT" ]; then R=$SEAM; else R=$(seam "$1"); fi',
  '  if [ "$1" -lt 4096 ]; then H=$R; else H=$HEAD; fi',
  '}',
  'if [ "$FROM" -gt 0 ]; then',
  '  if [ "$FROM" -gt "$CUT" ] || { at "$FROM"; [ "$INO $H $R" != "$WANT" ]; }; then FROM=0; fi',
  'fi',
  SNAPSHOT_CHECK,
  'if [ -z "$SNAP" ]; then',
  DIGEST_CHECK,
  'fi',
  'echo "$FROM $INO $HEAD $SEAM${DGZ:+ digest $DGZ}${SNAP:+ snapshot $SNAP}${SWHY:+ nosnapshot $SWHY}"',
  DIGEST_SEND,
  // Nothing left to filter (a snapshot or digest at the cut): an empty gzip member, no pipeline.
  String.raw`if [ "$FROM" -ge "$CUT" ]; then printf '\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00'; exit 0; fi`,
  // The sleep holds no stream of ours: the command ends as soon as the filter does.
  '( while sleep 0.25 </dev/null >/dev/null 2>&1; do',
  '  p=$(sed -n "s/^pos:[[:space:]]*//p" /proc/$$/fdinfo/3 2>/dev/null); [ -n "$p" ] || exit 0',
  '  echo "awrl-progress $p" >&2 || exit 0',
  'done ) >/dev/null &',
  'PL=$!',
  // Only [FROM, CUT) is read: GNU dd in 1 MiB blocks (head -c copies 8 KiB at a time: 3x the
  // CPU of the whole filter), else tail (seeks to FROM in a regular file) and head.
  'part() {',
  '  if dd --version >/dev/null 2>&1; then',
  '    dd bs=1M skip="$FROM" count=$((CUT - FROM)) iflag=skip_bytes,count_bytes status=none <&3',
  '  elif [ "$FROM" -gt 0 ]; then tail -c +$((FROM + 1)) <&3 | head -c $((CUT - FROM))',
  '  else head -c "$CUT" <&3; fi',
  '}',
  `part | LC_ALL=C grep -a ${NOT_TABLE_ROW} -e "$KEYS" | gzip -1`,
  'S=("${PIPESTATUS[@]}")',
  'kill "$PL" 2>/dev/null',
  // grep: 0 lines kept, 1 none (both fine), 2 an error.
  'if [ "${S[1]}" -gt 1 ] || [ "${S[2]}" -ne 0 ]; then echo "the filter failed (grep ${S[1]}, gzip ${S[2]})" >&2; exit 4; fi',
].join('\n');

/** `awrl-progress N` lines on the filter's stderr; other lines are its errors. */
export const PROGRESS_LINE = /^awrl-progress (\d+)$/;
