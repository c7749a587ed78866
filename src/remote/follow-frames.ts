// What a follower tells its client. The follower protocol, both ends: the bash follower run on the
// target (FOLLOWER_SCRIPT) and the client's parser of its framed stdout (FrameParser: fed arbitrary
// chunks, it emits frames; data as it arrives, partial frames included, so latency does not wait
// for a whole frame); kept together so that a change to the frames is one change in one file. What
// the client makes of `P` frames (and of followers that fail) is in follow-status.ts.

import type { MemberCodec } from './member-decoder.js';

export type Frame =
  | { kind: 'state'; inode: string; prefixLen: number; prefixHash: string }
  | { kind: 'reset'; reason: 'truncated' | 'replaced' | 'appeared' }
  | { kind: 'data'; offset: number; bytes: Buffer }
  /** The follower cannot read the file (text: its error) or can again (null). It keeps trying. */
  | { kind: 'problem'; text: string | null }
  /** The file does not exist (yet): the follower is up and waits for it. */
  | { kind: 'waiting' }
  /** How changes reach the follower (pushed by inotifywait, or polled) and how it reads them (its
   *  resident reader, or a few processes per change): said once, first, for the client's status. */
  | { kind: 'wake'; pushed: boolean; resident: boolean };

/** What the parser reads off the wire: the frames, and a compressed range (`Z`) as its header and
 *  then its compressed bytes as they arrive (`last` on the final piece). FrameInflater (follow-inflate.ts)
 *  turns the pieces back into `data` frames, in order with the frames around them. */
export type WireFrame =
  | Frame
  | { kind: 'zhead'; offset: number; length: number; compressedLength: number; codec: MemberCodec }
  | { kind: 'zbytes'; bytes: Buffer; last: boolean };

/** Bytes before the offset both ends compare to recognise the file they were reading. */
export const TAIL_WINDOW = 256;
/** Bytes of the file's start whose md5 the follower reports in `S` frames. */
export const PREFIX_WINDOW = 64;

/**
 * The follower. Args: file, offset, expected inode ('-' if none), expected prefix md5 ('-'), its
 * length, heartbeat timeout (s), poll interval (s), md5 of the last delivered bytes before the
 * offset ('-'), their count, the least backlog sent compressed (bytes, 0: never), the compressor
 * jobs run at once (0: one fewer than the target's cores, 1 to 4), the bytes per member, the poll
 * interval (s) while the file is quiet, and the codecs to try, best first (`lz4,zstd,gzip`: the
 * first the target has; none of them: everything plain).
 *
 * Output on stdout only, framed so that notices and data can never be confused or reordered
 * (tail -F puts its notices on stderr, which reaches the client out of order with stdout):
 *   `S <inode> <prefixLen> <prefixMd5>\n`  what the client needs to resume after a reconnect
 *   `R <truncated|replaced|appeared>\n`    delivery restarts at offset 0
 *   `D <offset> <n>\n` + n bytes            file bytes
 *   `Z <offset> <n> <c>\n` + c bytes        n file bytes as one gzip member (a backlog: see below)
 *   `Z <offset> <n> <c> zstd\n` + c bytes   the same as one zstd frame
 *   `Z <offset> <n> <c> lz4\n` + c bytes    the same as one LZ4 frame (independent 1 MiB blocks)
 *   `P <error>\n` / `P\n`                  the file is there but cannot be read / can again
 *   `W\n`                                 the file does not exist yet (so the client knows it is up)
 *   `M <push|poll> <resident|forks>\n`    first: changes pushed (inotifywait) or polled; read by the
 *                                         resident reader (perl) or by a few processes per change
 *
 * Truncation is seen by size and rotation by inode at every poll. A truncate-then-regrow between
 * two polls (a restarted trainer rewriting its log) hides behind a larger size, so whenever the
 * file grew or its mtime moved, the first bytes and the last ≤ 256 delivered bytes before the
 * offset are compared with the file (the shell's own `read`, and one `cmp`): a difference is `truncated`.
 * A new follower (after a reconnect) checks the same from the client's md5s.
 *
 * A missing file is waited for quietly (a run not started yet); one that exists but cannot be
 * opened or read is reported with `P` once and retried every poll, so the client can say why
 * nothing arrives instead of retrying silently.
 *
 * A backlog of at least `zmin` bytes (a follower started far behind: `follow` of a long log) goes
 * as members of 8 MiB, then twice as many bytes each, up to `zchunk`, `zjobs` of them compressed at once while the previous ones are
 * sent: zstd -1 where the target has it (a trainer log crosses the wire ~30 times smaller, for a
 * fifth of gzip's CPU), else gzip -1 (~10 times). The live tail is always plain `D`.
 * A member that comes back short (the file shrank under it) is sent and the rest dropped: the next
 * look at the file says what happened. Without zstd and gzip everything is plain.
 *
 * Quiet (the file's mtime at least 2 s old at the last look), each poll is bash's own tests
 * (`-ef` the file we hold, `-nt` a stamp carrying the mtime seen): no fork, so a quiet log costs
 * the target next to nothing; any write moves the mtime past the stamp's and the full look (one
 * `stat`) follows at the next poll. Quiet polls come every `qpoll` s (bash's own wake-up is most
 * of a quiet follower's cost); a full look is taken every 50 of them all the same.
 *
 * The loop runs in its own process group; the foreground only reads heartbeat lines from stdin and
 * kills that group when they stop (client gone, even silently) or stdin closes. A blocked write
 * (dead path, full window) therefore cannot keep the follower alive.
 */
export const FOLLOWER_SCRIPT = `
f=$1; off=$2; eino=$3; efp=$4; eplen=$5; hbt=$6; poll=$7; etfp=\${8:--}; etlen=\${9:-0}
zmin=\${10:-0}; zjobs=\${11:-0}; zchunk=\${12:-134217728}; qpoll=\${13:-$poll}; zcodecs=\${14:-zstd,gzip}
live=\${15:-}
export LC_ALL=C
# The resident reader (follow-resident.ts) where the target has perl: the live tail without a fork.
[ -n "$live" ] && ! command -v perl >/dev/null 2>&1 && live=
# The compressor, its decoder and the codec word of its Z frames (unquoted below: split into words):
# the first of the client's codecs this target has. lz4: 1 MiB blocks, the decoder's unit.
zc=; zd=; zw=
for c in \${zcodecs//,/ }; do
  command -v "$c" >/dev/null 2>&1 || continue
  case $c in
    lz4) zc='lz4 -1 -q -c -B6'; zd='lz4 -dc -q'; zw=' lz4' ;;
    zstd) zc='zstd -1 -q -c'; zd='zstd -dc -q'; zw=' zstd' ;;
    gzip) zc='gzip -1 -c'; zd='gzip -dc'; zw= ;;
    *) continue ;;
  esac
  break
done
[ -n "$zc" ] || zmin=0
# One core is left to sshd's cipher and the rest of the head (a 2-core head: 1 job read faster).
# Counted once the first member is being compressed (sendz): its fork is not on the way to it.
cores() { zjobs=$(nproc 2>/dev/null) || zjobs=2; zjobs=$((zjobs - 1)); [ "$zjobs" -lt 1 ] && zjobs=1; [ "$zjobs" -gt 4 ] && zjobs=4; }
# A full, read-only or missing TMPDIR must not stop the follower: try the usual other places.
w=
for b in "\${TMPDIR:-/tmp}" /tmp /dev/shm "\${HOME:-/nonexistent}"; do
  w=$(mktemp -d "$b/awrl-follow.XXXXXX" 2>/dev/null) && break
done
[ -n "$w" ] || { echo "awrl-follow: no writable temporary directory (TMPDIR, /tmp, /dev/shm, HOME)" >&2; exit 1; }
mkfifo "$w/nap" "$w/push" || exit 1
# Its source in a file: ps on the target then shows perl .../resident.pl FILE, not the source.
[ -n "$live" ] && { printf '%s' "$live" > "$w/resident.pl" || live=; }
command -v inotifywait >/dev/null 2>&1 && inw=1 || inw=
m1=poll; [ -n "$inw" ] && m1=push; m2=forks; [ -n "$live" ] && m2=resident
printf 'M %s %s\\n' "$m1" "$m2"
follower() {
  exec 5<>"$w/nap" 6<>"$w/push"
  ino=; plen=0; tlen=0; perr=; lmt=; pending=start; fresh=; ipid=
  : > "$w/tail"
  # A nap is a read that times out (no fork); a quiet one reads the pushed changes, so a write
  # ends it at once. Changes pushed before a look are in that look: drop them.
  nap() { read -r -t "$1" -u "\${2:-5}" _; while read -r -t 0 -u 6 && read -r -u 6 _; do :; done; }
  # The file held (fd 3, whatever its name now leads to) watched by inotifywait where the target
  # has it: every change to it is a line on the push fifo. Restarted for each file opened, and
  # ended with the file let go (it holds fd 3 too: a deleted log's space would stay taken).
  unpush() { [ -n "$ipid" ] && kill "$ipid" 2>/dev/null; ipid=; }
  push() {
    unpush
    [ -n "$inw" ] || return 0
    inotifywait -m -q -e modify,attrib,move_self,delete_self --format . /dev/fd/3 >&6 2>/dev/null &
    ipid=$!
  }
  md5() { md5sum | cut -c1-32; }
  span() { dd if=/dev/fd/3 iflag=skip_bytes,count_bytes skip="$1" count="$2" bs=65536 2>/dev/null; }
  # problem WHERE TEXT: reported once while it lasts; fine [WHERE]: it is over (WHERE: only that one).
  problem() {
    local m=\${2//$'\\n'/ }; m=\${m:0:400}; psrc=$1
    [ "$m" = "$perr" ] && return; perr=$m; printf 'P %s\\n' "$m"
  }
  fine() { [ -z "$perr" ] && return; [ -n "$1" ] && [ "$1" != "$psrc" ] && return; perr=; printf 'P\\n'; }
  reset() { off=0; plen=0; tlen=0; : > "$w/tail"; printf 'R %s\\n' "$1"; }
  # The first n bytes, read by the shell itself (no fork): /dev/fd/3 opens our file afresh at 0.
  head4() { exec 4</dev/fd/3; IFS= read -r -N "$1" -u 4 "$2"; exec 4<&-; }
  # No first bytes yet (a follow from 0): the md5 of nothing, without the three forks.
  state() {
    local n=$off h=d41d8cd98f00b204e9800998ecf8427e; [ "$n" -gt 64 ] && n=64
    plen=$n; pstr=
    if [ "$plen" -gt 0 ]; then head4 "$plen" pstr; h=$(head -c "$plen" /dev/fd/3 | md5); fi
    printf 'S %s %s %s\\n' "$ino" "$plen" "$h"
  }
  # The first bytes grow from what was just sent ($1: those bytes, from offset $2; $3: a member),
  # never from the file read again: rewritten in between, its new first bytes would pass for ours.
  taken() {
    local need=$((64 - plen)) x=
    { [ "$need" -gt 0 ] && [ "$2" -eq "$plen" ]; } || return 0
    if [ -n "$3" ]; then x=$($zd "$1" | head -c "$need"; printf .); x=\${x%.}
    else IFS= read -r -N "$need" x < "$1"; fi
    pstr=$pstr$x; plen=\${#pstr}
    printf 'S %s %s %s\\n' "$ino" "$plen" "$(printf %s "$pstr" | md5)"
  }
  # Still the file we delivered: same first bytes, same bytes just before the offset (one fork).
  same() {
    local k=$tlen x; [ "$k" -gt 256 ] && k=256
    if [ "$plen" -gt 0 ]; then head4 "$plen" x; [ "$x" = "$pstr" ] || return 1; fi
    if [ "$k" -gt 0 ]; then cmp -s -n "$k" -i "$((off - k)):$((tlen - k))" /dev/fd/3 "$w/tail" || return 1; fi
    return 0
  }
  # 0 open, 1 missing (waited for quietly), 2 there but unusable (reported).
  openit() {
    if { exec 3<"$f"; } 2>"$w/err" && [ ! -d "$f" ]; then
      # Inode, size and mtime in one stat: attach needs the first two, the first look all three.
      local s; s=$(stat -L -c '%i %s %.9Y' /dev/fd/3) && ino=\${s%% *} && fsize=\${s#* } && fresh=$s \
        && fsize=\${fsize%% *} && return 0
    fi
    exec 3<&-
    local e; e=$(cat "$w/err" 2>/dev/null); e=\${e#*line *: }
    [ -d "$f" ] && e="$f: Is a directory"
    case $e in '' | *'No such file or directory'*) return 1 ;; esac
    problem open "$e"; return 2
  }
  attach() {
    openit; case $? in 1) [ "$pending" = start ] && printf 'W\\n'; pending=appeared; return 1 ;; 2) return 1 ;; esac
    fine
    if [ "$pending" = start ]; then
      size=$fsize
      if [ "$eino" != - ] && [ "$ino" != "$eino" ]; then reset replaced
      elif [ "$size" -lt "$off" ]; then reset truncated
      elif [ "$efp" != - ] && [ "$(head -c "$eplen" /dev/fd/3 | md5)" != "$efp" ]; then reset truncated
      elif [ "$etlen" -gt 0 ] && [ "$(span $((off - etlen)) "$etlen" | md5)" != "$etfp" ]; then reset truncated
      else
        tlen=$off; [ "$tlen" -gt 256 ] && tlen=256
        if [ "$tlen" -gt 0 ]; then span $((off - tlen)) "$tlen" > "$w/tail"; else : > "$w/tail"; fi
      fi
    else
      reset "$pending"
    fi
    pending=; lmt=; push; state
  }
  # Compressed members of [off, $1): zjobs compressing while the one before them is sent. Files go by
  # slot (reused, removed with $w). 0: all sent; 1: one came back short (sent, stop); 2: nothing
  # could be compressed (plain frames then). dd's summary (last line) is the raw count.
  sendz() {
    local end=$1 next=$off i=0 j=0 k n got zl line last= lgot=0 rc=0 zn=$zchunk
    local -a pid want
    # The first member is small (its bytes go out at once), each next one twice the size up to
    # zchunk: a compressor process costs as much to start as compressing MiBs (zstd: ~60 ms).
    [ "$zn" -gt 8388608 ] && zn=8388608
    while [ "$j" -lt "$i" ] || { [ "$next" -lt "$end" ] && [ "$rc" -eq 0 ]; }; do
      while [ $((i - j)) -le "$zjobs" ] && [ "$next" -lt "$end" ] && [ "$rc" -eq 0 ]; do
        n=$((end - next)); [ "$n" -gt "$zn" ] && n=$zn; k=$((i % (zjobs + 2)))
        zn=$((zn * 2)); [ "$zn" -gt "$zchunk" ] && zn=$zchunk
        { dd if=/dev/fd/3 iflag=skip_bytes,count_bytes skip="$next" count="$n" bs=1M 2>"$w/e$k" | $zc > "$w/z$k" && stat -c %s "$w/z$k" > "$w/s$k"; } &
        pid[i]=$!; want[i]=$n; i=$((i + 1)); next=$((next + n))
        [ "$zjobs" -le 0 ] && cores
      done
      k=$((j % (zjobs + 2)))
      got=; zl=
      wait "\${pid[j]}" && { while IFS= read -r line; do got=\${line%% *}; done < "$w/e$k"; IFS= read -r zl < "$w/s$k"; }
      case $got in '' | *[!0-9]*) got=0 ;; esac
      case $zl in '' | *[!0-9]*) got=0 ;; esac
      if [ "$rc" -eq 0 ] && [ "$got" -gt 0 ]; then
        printf 'Z %s %s %s%s\n' "$off" "$got" "$zl" "$zw"; cat "$w/z$k"; taken "$w/z$k" "$off" z
        off=$((off + got)); last=$k; lgot=$got
        [ "$got" -lt "\${want[j]}" ] && rc=1
      elif [ "$rc" -eq 0 ]; then
        [ -z "$last" ] && rc=2 || rc=1
      fi
      j=$((j + 1))
    done
    # The window before the new offset, from the bytes sent (the file may have changed since).
    if [ -n "$last" ]; then
      if [ "$lgot" -ge 256 ]; then $zd "$w/z$last" | tail -c 256 > "$w/tail"; tlen=256
      else $zd "$w/z$last" >> "$w/tail"; tlen=$((tlen + lgot)); fi
    fi
    return "$rc"
  }
  send() {
    local n got
    if [ "$zmin" -gt 0 ] && [ $(($1 - off)) -ge "$zmin" ]; then
      sendz "$1"; case $? in 1) return 1 ;; esac
    fi
    while [ "$off" -lt "$1" ]; do
      n=$(($1 - off)); [ "$n" -gt 4194304 ] && n=4194304
      # dd's own summary ("N bytes ... copied", last line) gives the count without another fork.
      dd if=/dev/fd/3 of="$w/chunk" iflag=skip_bytes,count_bytes skip="$off" count="$n" bs=65536 2>"$w/err" || { problem read "$(head -n 1 "$w/err")"; return 1; }
      got=; while IFS= read -r line; do got=\${line%% *}; done < "$w/err"
      case $got in ''|*[!0-9]*) got=$(stat -c %s "$w/chunk") ;; esac
      [ "$got" -gt 0 ] || return 1
      printf 'D %s %s\\n' "$off" "$got"
      # tee both sends the bytes and keeps them as the window before the next offset.
      if [ "$got" -ge 256 ]; then tee "$w/tail" < "$w/chunk"; tlen=$got
      else tee -a "$w/tail" < "$w/chunk"; tlen=$((tlen + got)); fi
      taken "$w/chunk" "$off"
      off=$((off + got))
    done
    fine
    if [ "$tlen" -gt 65536 ]; then tail -c 256 "$w/tail" > "$w/t2" && mv -f "$w/t2" "$w/tail"; tlen=256; fi
  }
  # The live tail handed to the resident reader until the file is anything but appended to; its
  # offset and window are ours again after it (and nothing else is: the next look is a full one).
  # Another exit than 0 (perl failing) and we go on alone. Not again before a nap (no spin).
  resident() {
    printf '%s %s\\n' "$off" "$tlen" > "$w/live"; printf '%s' "$pstr" > "$w/pfx"
    perl "$w/resident.pl" "$f" "$off" "$poll" "$qpoll" "$zmin" "$w"
    [ $? -eq 0 ] || live=
    IFS=' ' read -r off tlen < "$w/live"
    lmt=; quiet=0; fresh=; rskip=1
  }
  quiet=0; seen=; rskip=
  while :; do
    if [ -n "$pending" ]; then attach || { nap "$poll"; continue; }; fi
    if [ "$quiet" -gt 0 ] && [ "$f" -ef /dev/fd/3 ] && ! [ "$f" -nt "$w/seen" ]; then
      quiet=$((quiet - 1)); fresh=; rskip=; nap "$qpoll" 6; continue
    fi
    quiet=0
    # Just opened: the look taken then is the first one (one stat fewer before the first bytes).
    if [ -n "$fresh" ]; then cur=$fresh; fresh=
    else cur=$(stat -L -c '%i %s %.9Y' -- "$f" 2>"$w/err"); fi
    if [ -z "$cur" ]; then
      # Gone: drain and wait for it. Not reachable (a directory made unreadable): the name may
      # still lead to our file, so keep it, say why, and look again.
      case $(cat "$w/err") in
        *'No such file or directory'* | *'Not a directory'* | '') send "$(stat -L -c %s /dev/fd/3)"; exec 3<&-; unpush; pending=appeared; continue ;;
        *) e=$(cat "$w/err"); problem stat "$f: \${e##*: }"; nap "$poll"; continue ;;
      esac
    fi
    fine stat
    pino=\${cur%% *}; cur=\${cur#* }; psize=\${cur%% *}; pmt=\${cur#* }
    if [ "$pino" != "$ino" ]; then
      send "$(stat -L -c %s /dev/fd/3)"; exec 3<&-; unpush; pending=replaced; continue
    fi
    if [ "$psize" -lt "$off" ]; then reset truncated; state
    elif { [ "$psize" -gt "$off" ] || [ "$pmt" != "$lmt" ]; } && ! same; then reset truncated; state
    fi
    lmt=$pmt
    [ "$psize" -gt "$off" ] && send "$psize"
    if [ -n "$live" ] && [ -z "$rskip" ] && [ -z "$perr" ] && [ "$off" -eq "$psize" ] && [ "$plen" -ge 64 ]; then
      resident; continue
    fi
    # Quiet once the last write is 2 s old: a later write then moves the mtime past the stamp's,
    # whatever the file system's clock granularity.
    if [ "$off" -eq "$psize" ]; then
      printf -v now '%(%s)T' -1
      if [ $((now - \${pmt%%.*})) -ge 2 ]; then
        if [ "$seen" = "$pmt" ] || touch -d "@$pmt" "$w/seen" 2>/dev/null; then seen=$pmt; quiet=50; fi
      fi
    fi
    rskip=; nap "$poll" $((quiet > 0 ? 6 : 5))
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

const MAX_HEADER = 1024;

export class FrameParser {
  private header: Buffer[] = [];
  private headerLen = 0;
  /** Bytes still to come for the current D (or Z) frame, and the offset of the next one. */
  private remaining = 0;
  private dataOffset = 0;
  private compressed = false;

  constructor(private readonly emit: (f: WireFrame) => void) {}

  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, chunk.length - i);
        const bytes = chunk.subarray(i, i + n);
        const offset = this.dataOffset;
        this.remaining -= n;
        this.dataOffset += n;
        i += n;
        if (this.compressed) this.emit({ kind: 'zbytes', bytes, last: this.remaining === 0 });
        else this.emit({ kind: 'data', offset, bytes });
        continue;
      }
      const nl = chunk.indexOf(0x0a, i);
      if (nl < 0) {
        this.header.push(chunk.subarray(i));
        this.headerLen += chunk.length - i;
        if (this.headerLen > MAX_HEADER) throw new Error('follower protocol error: header line too long');
        return;
      }
      this.header.push(chunk.subarray(i, nl));
      const line = Buffer.concat(this.header).toString('utf8');
      this.header = [];
      this.headerLen = 0;
      i = nl + 1;
      this.line(line);
    }
  }

  private line(line: string): void {
    const f = line.split(' ');
    if (f[0] === 'D' && f.length === 3) {
      this.dataOffset = Number(f[1]);
      this.remaining = Number(f[2]);
      this.compressed = false;
    } else if (f[0] === 'Z' && (f.length === 4 || (f.length === 5 && isNamedCodec(f[4]))) && Number(f[3]) > 0) {
      this.remaining = Number(f[3]);
      this.compressed = true;
      const [offset, length] = [Number(f[1]), Number(f[2])];
      const codec: MemberCodec = f.length === 5 && isNamedCodec(f[4]) ? f[4] : 'gzip';
      this.emit({ kind: 'zhead', offset, length, compressedLength: this.remaining, codec });
    } else if (f[0] === 'R' && (f[1] === 'truncated' || f[1] === 'replaced' || f[1] === 'appeared')) {
      this.emit({ kind: 'reset', reason: f[1] });
    } else if (f[0] === 'S' && f.length === 4) {
      this.emit({ kind: 'state', inode: f[1], prefixLen: Number(f[2]), prefixHash: f[3] });
    } else if (f[0] === 'M' && f.length === 3) {
      this.emit({ kind: 'wake', pushed: f[1] === 'push', resident: f[2] === 'resident' });
    } else if (line === 'W') {
      this.emit({ kind: 'waiting' });
    } else if (line === 'P') {
      this.emit({ kind: 'problem', text: null });
    } else if (f[0] === 'P' && line.length > 2) {
      this.emit({ kind: 'problem', text: line.slice(2) });
    } else {
      throw new Error(`follower protocol error: unexpected line '${line.slice(0, 80)}'`);
    }
  }
}

/** The codec words a Z frame may end with (a gzip member has none). */
function isNamedCodec(w: string | undefined): w is 'zstd' | 'lz4' {
  return w === 'zstd' || w === 'lz4';
}
