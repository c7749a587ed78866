// What a follower tells its client. The follower protocol, both ends: the bash follower run on the
// target (FOLLOWER_SCRIPT) and the client's parser of its framed stdout (FrameParser: fed arbitrary
// chunks, it emits frames; data as it arrives, partial frames included, so latency does not wait
// for a whole frame); kept together so that a change to the frames is one change in one file. And
// the follow status both followers (local and ssh) publish: a follower that keeps failing while
// the connection is fine says so (FollowTrouble, onFollowProblem) instead of retrying silently.

export type Frame =
  | { kind: 'state'; inode: string; prefixLen: number; prefixHash: string }
  | { kind: 'reset'; reason: 'truncated' | 'replaced' | 'appeared' }
  | { kind: 'data'; offset: number; bytes: Buffer }
  /** The follower cannot read the file (text: its error) or can again (null). It keeps trying. */
  | { kind: 'problem'; text: string | null }
  /** The file does not exist (yet): the follower is up and waits for it. */
  | { kind: 'waiting' };

/** Bytes before the offset both ends compare to recognise the file they were reading. */
export const TAIL_WINDOW = 256;
/** Bytes of the file's start whose md5 the follower reports in `S` frames. */
export const PREFIX_WINDOW = 64;

/**
 * The follower. Args: file, offset, expected inode ('-' if none), expected prefix md5 ('-'), its
 * length, heartbeat timeout (s), poll interval (s), md5 of the last delivered bytes before the
 * offset ('-'), their count.
 *
 * Output on stdout only, framed so that notices and data can never be confused or reordered
 * (tail -F puts its notices on stderr, which reaches the client out of order with stdout):
 *   `S <inode> <prefixLen> <prefixMd5>\n`  what the client needs to resume after a reconnect
 *   `R <truncated|replaced|appeared>\n`    delivery restarts at offset 0
 *   `D <offset> <n>\n` + n bytes            file bytes
 *   `P <error>\n` / `P\n`                  the file is there but cannot be read / can again
 *   `W\n`                                 the file does not exist yet (so the client knows it is up)
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
 * The loop runs in its own process group; the foreground only reads heartbeat lines from stdin and
 * kills that group when they stop (client gone, even silently) or stdin closes. A blocked write
 * (dead path, full window) therefore cannot keep the follower alive.
 */
export const FOLLOWER_SCRIPT = `
f=$1; off=$2; eino=$3; efp=$4; eplen=$5; hbt=$6; poll=$7; etfp=\${8:--}; etlen=\${9:-0}
export LC_ALL=C
# A full, read-only or missing TMPDIR must not stop the follower: try the usual other places.
w=
for b in "\${TMPDIR:-/tmp}" /tmp /dev/shm "\${HOME:-/nonexistent}"; do
  w=$(mktemp -d "$b/awrl-follow.XXXXXX" 2>/dev/null) && break
done
[ -n "$w" ] || { echo "awrl-follow: no writable temporary directory (TMPDIR, /tmp, /dev/shm, HOME)" >&2; exit 1; }
mkfifo "$w/nap" || exit 1
follower() {
  exec 5<>"$w/nap"
  ino=; plen=0; tlen=0; perr=; lmt=; pending=start
  : > "$w/tail"
  nap() { read -r -t "$poll" -u 5 _; }
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
  state() {
    local n=$off; [ "$n" -gt 64 ] && n=64
    plen=$n; pstr=; [ "$plen" -gt 0 ] && head4 "$plen" pstr
    printf 'S %s %s %s\\n' "$ino" "$plen" "$(head -c "$plen" /dev/fd/3 | md5)"
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
      ino=$(stat -L -c %i /dev/fd/3) && return 0
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
      size=$(stat -L -c %s /dev/fd/3)
      if [ "$eino" != - ] && [ "$ino" != "$eino" ]; then reset replaced
      elif [ "$size" -lt "$off" ]; then reset truncated
      elif [ "$efp" != - ] && [ "$(head -c "$eplen" /dev/fd/3 | md5)" != "$efp" ]; then reset truncated
      elif [ "$etlen" -gt 0 ] && [ "$(span $((off - etlen)) "$etlen" | md5)" != "$etfp" ]; then reset truncated
      else
        tlen=$off; [ "$tlen" -gt 256 ] && tlen=256
        span $((off - tlen)) "$tlen" > "$w/tail"
      fi
    else
      reset "$pending"
    fi
    pending=; lmt=; state
  }
  send() {
    local n got
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
      off=$((off + got))
    done
    fine
    if [ "$tlen" -gt 65536 ]; then tail -c 256 "$w/tail" > "$w/t2" && mv -f "$w/t2" "$w/tail"; tlen=256; fi
    if [ "$plen" -lt 64 ] && [ "$off" -gt "$plen" ]; then state; fi
  }
  while :; do
    if [ -n "$pending" ]; then attach || { nap; continue; }; fi
    cur=$(stat -L -c '%i %s %.9Y' -- "$f" 2>"$w/err")
    if [ -z "$cur" ]; then
      # Gone: drain and wait for it. Not reachable (a directory made unreadable): the name may
      # still lead to our file, so keep it, say why, and look again.
      case $(cat "$w/err") in
        *'No such file or directory'* | *'Not a directory'* | '') send "$(stat -L -c %s /dev/fd/3)"; exec 3<&-; pending=appeared; continue ;;
        *) e=$(cat "$w/err"); problem stat "$f: \${e##*: }"; nap; continue ;;
      esac
    fi
    fine stat
    pino=\${cur%% *}; cur=\${cur#* }; psize=\${cur%% *}; pmt=\${cur#* }
    if [ "$pino" != "$ino" ]; then
      send "$(stat -L -c %s /dev/fd/3)"; exec 3<&-; pending=replaced; continue
    fi
    if [ "$psize" -lt "$off" ]; then reset truncated; state
    elif { [ "$psize" -gt "$off" ] || [ "$pmt" != "$lmt" ]; } && ! same; then reset truncated; state
    fi
    lmt=$pmt
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

const MAX_HEADER = 1024;

export class FrameParser {
  private header: Buffer[] = [];
  private headerLen = 0;
  /** Bytes still to come for the current D frame, and the offset of the next one. */
  private remaining = 0;
  private dataOffset = 0;

  constructor(private readonly emit: (f: Frame) => void) {}

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
        this.emit({ kind: 'data', offset, bytes });
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
    } else if (f[0] === 'R' && (f[1] === 'truncated' || f[1] === 'replaced' || f[1] === 'appeared')) {
      this.emit({ kind: 'reset', reason: f[1] });
    } else if (f[0] === 'S' && f.length === 4) {
      this.emit({ kind: 'state', inode: f[1], prefixLen: Number(f[2]), prefixHash: f[3] });
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

/** A followed file that cannot be followed although the connection works. */
export interface FollowProblem {
  /** The transport's target ('local', an ssh alias, user@host[:port]). */
  target: string;
  path: string;
  /** The error as the target said it (secrets scrubbed), e.g. `/x/stdout.log: Permission denied`. */
  error: string;
  /** What to do about it. */
  advice: string;
  /** Epoch ms of the first failure in this run of failures. */
  since: number;
  /** Failed follower starts (ssh) or looks at the file (local) so far. */
  attempts: number;
  /** One line for people: target, path, error, advice. */
  text: string;
}

type ProblemListener = (target: string, path: string, problem: FollowProblem | null) => void;
const listeners = new Set<ProblemListener>();
const current = new Map<string, FollowProblem>();

/** Every follow problem reported (null: that path is followed normally again). Returns unsubscribe.
 *  Process-wide because `Transport.follow` has no status channel of its own. */
export function onFollowProblem(listener: ProblemListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The problems reported and not cleared yet. */
export function followProblems(): FollowProblem[] {
  return [...current.values()];
}

/** Published after this many failed attempts, or after this long failing, whichever comes first. */
export const PROBLEM_AFTER_ATTEMPTS = 3;
export const PROBLEM_AFTER_MS = 3000;

/** One follower's run of failures: reported once it persists, cleared when following works. */
export class FollowTrouble {
  private since = 0;
  private attempts = 0;
  private error = '';
  private published = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly key: string;

  constructor(
    private readonly target: string,
    private readonly path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = `${target}\u0000${path}`;
  }

  get failing(): boolean {
    return this.attempts > 0;
  }

  /** One more failed attempt (a follower that ended at once, a look at the file that failed).
   *  `lasting`: the failure has already lasted long enough to be said at once. */
  failed(error: string, lasting = false): void {
    if (this.attempts === 0) {
      this.since = this.now();
      // A failure nobody retries soon (a follower that keeps running, reporting its problem
      // once) must still be published when it has lasted long enough.
      this.timer = setTimeout(() => this.publish(), PROBLEM_AFTER_MS);
      this.timer.unref?.();
    }
    this.attempts++;
    const changed = error !== this.error;
    this.error = error;
    if (lasting || this.attempts >= PROBLEM_AFTER_ATTEMPTS || this.now() - this.since >= PROBLEM_AFTER_MS || (this.published && changed)) this.publish();
  }

  /** Following works (bytes or the file's state arrived): clear any report. */
  ok(): void {
    if (this.attempts === 0) return;
    this.attempts = 0;
    this.error = '';
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.published) return;
    this.published = false;
    current.delete(this.key);
    for (const l of [...listeners]) l(this.target, this.path, null);
  }

  /** The follower is closed: its report goes with it. */
  close(): void {
    this.ok();
  }

  private publish(): void {
    if (this.attempts === 0) return;
    const error = scrubSecrets(this.error);
    const advice = adviceFor(error, this.target, this.path);
    const p: FollowProblem = {
      target: this.target,
      path: this.path,
      error,
      advice,
      since: this.since,
      attempts: this.attempts,
      // The target's error usually starts with the path: said once is enough.
      text: `cannot follow ${this.path} on ${this.target}: ${error.startsWith(`${this.path}: `) ? error.slice(this.path.length + 2) : error}; ${advice} (still retrying)`,
    };
    this.published = true;
    current.set(this.key, p);
    for (const l of [...listeners]) l(this.target, this.path, p);
  }
}

function adviceFor(error: string, target: string, path: string): string {
  const on = target === 'local' ? '' : ` on ${target}`;
  if (/permission denied/i.test(error)) return target === 'local' ? `check its permissions for the user running awrl-tui (ls -l ${path})` : `check its permissions for the ssh user on ${target} (ls -l ${path})`;
  if (/is a directory/i.test(error)) return `the log path is a directory${on}, not a file: check the run's log path`;
  if (/not found|no such file/i.test(error)) return `a command the follower needs (bash, stat, dd, cmp, md5sum) is not found${on}: check PATH for non-interactive ssh sessions`;
  if (/unexpected (line|output)/i.test(error)) return `the remote shell printed text of its own: make the login shell's startup files quiet for non-interactive sessions`;
  if (/temporary directory/i.test(error)) return `free some space in TMPDIR, /tmp or HOME${on}`;
  if (/has not answered/i.test(error)) return `check that a shell${on} starts promptly (ssh ${target} true) and that TMPDIR and the log's file system respond; it may also wait for a free ssh channel`;
  return `check the file and the host${on}`;
}

/** Values of secret-looking environment variables never reach a message, whatever the target printed. */
function scrubSecrets(text: string): string {
  let out = text;
  for (const [name, value] of Object.entries(process.env)) {
    if (!value || value.length < 6 || !/KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i.test(name)) continue;
    out = out.split(value).join('<redacted>');
  }
  return out;
}
