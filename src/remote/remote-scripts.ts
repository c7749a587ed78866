// The bash scripts the ssh transport runs on the target. Each is passed as `bash -c SCRIPT argv0
// ARGS...`, so values only ever travel as positional arguments, never spliced into code.

/** `$1` path -> `INODE SIZE SECONDS.FRACTION`, or `missing`. `%y` carries the sub-second part on
 *  every GNU stat (`%.9Y` needs a recent coreutils). */
export const STAT_SCRIPT = `
if [ ! -e "$1" ]; then echo missing; exit 0; fi
stat -L -c '%i %s %Y %y' -- "$1"
`;

/** `$1` path, `$2` offset, `$3` length or empty -> the bytes. */
export const READ_SCRIPT = `
[ -f "$1" ] && [ -r "$1" ] || { echo "cannot read $1: no such readable file" >&2; exit 2; }
if [ -z "$3" ]; then exec tail -c +$(($2 + 1)) -- "$1"; fi
set -o pipefail
tail -c +$(($2 + 1)) -- "$1" | head -c "$3"
`;

/** `$1` path, `$2` octal mode; bytes on stdin. Temp file in the same directory + rename(2). */
export const WRITE_SCRIPT = `
d=$(dirname -- "$1")
mkdir -p -- "$d" || exit 1
t=$(mktemp "$d/.awrl-write.XXXXXX") || exit 1
if cat > "$t" && chmod "$2" "$t" && mv -f -- "$t" "$1"; then exit 0; fi
rm -f -- "$t"; exit 1
`;

/**
 * The follower. Args: file, offset, expected inode ('-' if none), expected prefix fingerprint ('-'),
 * its length, heartbeat timeout (s), poll interval (s).
 *
 * Output on stdout only, framed so that notices and data can never be confused or reordered
 * (tail -F puts its notices on stderr, which reaches the client out of order with stdout):
 *   `S <inode> <prefixLen> <prefixMd5>\n`  what the client needs to resume after a reconnect
 *   `R <truncated|replaced|appeared>\n`    delivery restarts at offset 0
 *   `D <offset> <n>\n` + n bytes            file bytes
 *
 * While connected, truncation is seen by size and rotation by inode at every poll; the prefix
 * fingerprint is checked when a follower starts (after a reconnect), where a truncate-then-regrow
 * could otherwise hide behind a larger size. (Checking it every poll costs three forks.)
 *
 * The loop runs in its own process group; the foreground only reads heartbeat lines from stdin and
 * kills that group when they stop (client gone, even silently) or stdin closes. A blocked write
 * (dead path, full window) therefore cannot keep the follower alive.
 */
export const FOLLOW_SCRIPT = `
f=$1; off=$2; eino=$3; efp=$4; eplen=$5; hbt=$6; poll=$7
# A full, read-only or missing TMPDIR must not stop the follower (it would exit at once, retried
# every second without a word): try the usual other places.
w=
for b in "\${TMPDIR:-/tmp}" /tmp /dev/shm "\${HOME:-/nonexistent}"; do
  w=$(mktemp -d "$b/awrl-follow.XXXXXX" 2>/dev/null) && break
done
[ -n "$w" ] || { echo "awrl-follow: no writable temporary directory (TMPDIR, /tmp, /dev/shm, HOME)" >&2; exit 1; }
mkfifo "$w/nap" || exit 1
follower() {
  exec 5<>"$w/nap"
  ino=; plen=0; missing=0
  nap() { read -r -t "$poll" -u 5 _; }
  fp() { head -c "$1" /dev/fd/3 2>/dev/null | md5sum | cut -c1-32; }
  reset() { off=0; plen=0; printf 'R %s\\n' "$1"; }
  state() {
    local n=$off; [ "$n" -gt 64 ] && n=64
    plen=$n; pfp=$(fp "$plen"); printf 'S %s %s %s\\n' "$ino" "$plen" "$pfp"
  }
  openit() { exec 3<"$f" 2>/dev/null || return 1; ino=$(stat -L -c %i /dev/fd/3) || return 1; }
  send() {
    local n got
    while [ "$off" -lt "$1" ]; do
      n=$(($1 - off)); [ "$n" -gt 4194304 ] && n=4194304
      # dd's own summary ("N bytes ... copied", last line) gives the count without another fork.
      LC_ALL=C dd if=/dev/fd/3 of="$w/chunk" iflag=skip_bytes,count_bytes skip="$off" count="$n" bs=65536 2>"$w/err" || return
      got=; while IFS= read -r line; do got=\${line%% *}; done < "$w/err"
      case $got in ''|*[!0-9]*) got=$(stat -c %s "$w/chunk") ;; esac
      [ "$got" -gt 0 ] || return
      printf 'D %s %s\\n' "$off" "$got"; cat "$w/chunk"
      off=$((off + got))
    done
    [ "$plen" -lt 64 ] && [ "$off" -gt "$plen" ] && state
  }
  if openit; then
    size=$(stat -L -c %s /dev/fd/3)
    if [ "$eino" != - ] && [ "$ino" != "$eino" ]; then reset replaced
    elif [ "$size" -lt "$off" ]; then reset truncated
    elif [ "$efp" != - ] && [ "$(fp "$eplen")" != "$efp" ]; then reset truncated
    fi
    state
  else
    missing=1
  fi
  while :; do
    if [ "$missing" = 1 ]; then
      if openit; then missing=0; reset appeared; state; else nap; continue; fi
    fi
    cur=$(stat -L -c '%i %s' -- "$f" 2>/dev/null)
    if [ -z "$cur" ]; then
      send "$(stat -L -c %s /dev/fd/3)"; exec 3<&-; missing=1; continue
    fi
    pino=\${cur% *}; psize=\${cur#* }
    if [ "$pino" != "$ino" ]; then
      send "$(stat -L -c %s /dev/fd/3)"
      openit || { missing=1; continue; }
      reset replaced; state
      psize=$(stat -L -c %s /dev/fd/3)
    elif [ "$psize" -lt "$off" ]; then
      reset truncated; state
    fi
    [ "$psize" -gt "$off" ] && send "$psize"
    nap
  done
}
set -m
follower &
fpid=$!
set +m
while IFS= read -r -t "$hbt" _; do :; done
kill -TERM -- -"$fpid" 2>/dev/null
rm -rf -- "$w"
`;
