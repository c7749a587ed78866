// One command on the head that runs the same small bash script on several nodes IN PARALLEL over
// ssh (the head itself, when asked, without ssh), for the GPU poller and the leftover sweep.
// Never one SSH channel per node from here: OpenSSH allows 10 sessions per connection and each
// exec pays the login shell's start-up; the head's own `ssh` reaches the nodes as its user would.
//
// Each node gets `bash -s` with the script on stdin (`set -- ARGS` first), so no value reaches a
// remote command line and the node's login shell (csh, fish) never parses it. The script runs as
// one `{ }` block with stdin from /dev/null: bash reads the whole block before running it, so
// nothing in it (a setup line, nvidia-smi) eats its text. Answers are collected per node in a temp
// dir (slow nodes never interleave), then printed in the order given, each between marker lines:
//   @@awrl-node NODE        the node's name as given
//   ... its output ...      stdout, then stderr only when it failed (ssh's warnings such as
//                           "Permanently added ... to the list of known hosts" must never read as data)
//   @@awrl-rc CODE          the exit code: 255 ssh failed, 124/137 no answer in time
import { shellQuote } from './quote.js';

/** Stands for the head itself in a node list (not a hostname: it has a space). */
export const HEAD_NODE = '@ head';
/** ssh would read a leading '-' as an option; a name with spaces or quotes is no hostname. */
export const NODE_NAME = /^[A-Za-z0-9_.][A-Za-z0-9_.:@-]{0,253}$/;
export const NODE_MARK = '@@awrl-node ';
export const RC_MARK = '@@awrl-rc ';
/** Exit code of `ssh` itself when it could not connect or authenticate. */
export const SSH_FAILED = 255;
/** Exit codes of `timeout` (TERM, then KILL after the grace): the node did not answer in time. */
export const TIMED_OUT = [124, 137];

export interface NodeFanOutOptions {
  /**
   * An ssh_config file ON THE HEAD used to reach the nodes (`ssh -F FILE`). Default: the head's
   * `AWRL_NODE_SSH_CONFIG` environment variable when set, else the head user's own ~/.ssh/config.
   */
  sshConfigFile?: string;
  /** ssh ConnectTimeout in seconds (default 5). */
  connectTimeoutSec?: number;
  /** The round waits this long for a node's answer (default 30 s): a hung node must not hang the round. */
  nodeTimeoutSec?: number;
  /**
   * A node that did not answer within nodeTimeoutSec keeps its question running in the background
   * for up to this long (default max(300, 10 x nodeTimeoutSec)); until it ends, later rounds report
   * the node at once instead of asking again and waiting for it again.
   */
  pendingTimeoutSec?: number;
  /**
   * Keep each head->node connection open between rounds (OpenSSH ControlMaster on the head, its
   * socket in the per-user fan-out directory, closed after `reuseSec` idle seconds; default 60):
   * a round every 5 s then logs in to a node once a minute at most instead of 12 times. 0: a new
   * login per node per round.
   */
  reuseSec?: number;
}

// The values come first as single-quoted assignments (shellQuote: POSIX quotes are valid bash), the
// nodes as "$@". ServerAlive*: a path that dies mid-answer is noticed in ~10 s, not hours.
//
// A hung node (nvidia-smi stuck on a GPU that fell off the bus, a frozen sshd) would otherwise hold
// every round for the whole limit: with 64 nodes polled every few seconds, one sick node made every
// node's figures ~30 s late, and each round left one more stuck process on it. Its question is
// therefore left running (bounded by `pend` seconds) and remembered in a per-user directory on the
// head: a file per node (`PID START`) that the question's shell holds flock'ed while it lives (a
// lock, not `kill -0`: an orphan's zombie or a reused PID would read as alive). While it is locked
// and older than the limit, rounds answer "still no answer" for that node at once.
// `wait -n` (bash >= 4.3) wakes the loop when a node answers; older bash polls every 0.2 s.
const FAN_OUT = String.raw`
set -u
cfg=@{cfg:-@{AWRL_NODE_SSH_CONFIG:-}}
d=
for b in "@{TMPDIR:-/tmp}" /tmp /dev/shm "@{HOME:-/nonexistent}"; do d=$(mktemp -d "$b/awrl-fanout.XXXXXX" 2>/dev/null) && break; done
[ -n "$d" ] || { echo "awrl: no writable temporary directory on the head (TMPDIR, /tmp, /dev/shm, HOME)" >&2; exit 1; }
pending=@{TMPDIR:-/tmp}/awrl-fanout-$(id -u)
mkdir -p -m 700 "$pending" 2>/dev/null
[ -d "$pending" ] && [ -O "$pending" ] || pending=
# Keyed by caller, ssh config and node name: the same name may be another host under another config.
a0=@{0//[!A-Za-z0-9_.-]/_}.$(printf '%s' "$cfg" | cksum | cut -d' ' -f1)
printf -v now '%(%s)T' -1
# Reused connections: one master per node (%C: hash of the host, port, user), only in our own dir.
mux=()
if [ "$reuse" -gt 0 ] && [ -n "$pending" ]; then
  mux=(-o ControlMaster=auto -o "ControlPath=$pending/cm-%C" -o "ControlPersist=$reuse")
fi
i=0
for h in "$@"; do
  i=$((i+1)); key=
  if [ -n "$pending" ]; then
    key=$pending/$a0.@{h//[!A-Za-z0-9_.:@-]/_}
    # Locked (flock's conflict status is 1) while the earlier question's shell lives; younger than
    # the limit, it is another cockpit's question in flight, not a hung node: ask as well.
    flock -n "$key" true 2>/dev/null
    if [ $? = 1 ] && read -r p since 2>/dev/null <"$key" && [ $((now - since)) -ge "$limit" ]; then
      : >"$d/$i"; echo "still no answer to the question asked $((now - since)) s ago" >"$d/$i.err"; echo 124 >"$d/$i.rc"
      continue
    fi
  fi
  {
    if [ -n "$key" ] && { exec 9>"$key"; } 2>/dev/null; then echo "$BASHPID $now" >&9; flock -n 9 2>/dev/null; fi
    # 9>&-: only this shell holds the lock (an ssh ControlMaster left behind must not).
    if [ "$h" = '${HEAD_NODE}' ]; then printf '%s\n' "$body" | timeout -k 2 "$pend" bash -s 9>&-
    else printf '%s\n' "$body" | timeout -k 2 "$pend" ssh -o BatchMode=yes -o ConnectTimeout="$ct" \
      -o ServerAliveInterval=5 -o ServerAliveCountMax=2 @{mux[@]+"@{mux[@]}"} @{cfg:+-F "$cfg"} -- "$h" bash -s 9>&-; fi
    echo $? >"$d/$i.rc"
    [ -z "$key" ] || rm -f "$key" # answered: nothing pending (and no file left behind)
  } >"$d/$i" 2>"$d/$i.err" </dev/null &
done
sleep "$limit" </dev/null >/dev/null 2>&1 & timer=$!
deadline=$((SECONDS + limit))
while :; do
  j=0; left=0
  for h in "$@"; do j=$((j+1)); [ -s "$d/$j.rc" ] || { left=1; break; }; done
  [ "$left" = 0 ] || [ "$SECONDS" -ge "$deadline" ] && break
  wait -n 2>/dev/null || sleep 0.2
done
kill "$timer" 2>/dev/null
i=0
for h in "$@"; do
  i=$((i+1)); echo "${NODE_MARK}$h"
  if [ -s "$d/$i.rc" ]; then rc=$(cat "$d/$i.rc"); cat "$d/$i"; [ "$rc" = 0 ] || cat "$d/$i.err"
  else rc=124; fi
  echo "${RC_MARK}$rc"
done
rm -rf "$d"
exit 0
`.replaceAll('@{', '${');

/** What each node runs: `set -- ARGS`, then the script as one block reading nothing from stdin. */
export function nodeScriptBody(script: string, args: readonly string[]): string {
  return `set -- ${args.map(shellQuote).join(' ')}\n{\n${script}\n} </dev/null\n`;
}

/** Throws on a name that is not a hostname (`HEAD_NODE` is allowed). */
export function checkNodeNames(nodes: readonly string[]): void {
  for (const n of nodes) if (n !== HEAD_NODE && !NODE_NAME.test(n)) throw new Error(`'${n}' is not a node name`);
}

/** The argv (for Transport.exec on the head): `bash -c FAN_OUT argv0 NODE...`. */
export function nodeFanOutArgv(
  argv0: string,
  script: string,
  args: readonly string[],
  nodes: readonly string[],
  opts: NodeFanOutOptions = {},
): string[] {
  checkNodeNames(nodes);
  const ct = Math.max(1, Math.round(opts.connectTimeoutSec ?? 5));
  const limit = Math.max(1, Math.round(opts.nodeTimeoutSec ?? 30));
  const pend = Math.max(limit, Math.round(opts.pendingTimeoutSec ?? Math.max(300, 10 * limit)));
  const reuse = Math.max(0, Math.round(opts.reuseSec ?? 60));
  const prelude = [
    `body=${shellQuote(nodeScriptBody(script, args))}`,
    `cfg=${shellQuote(opts.sshConfigFile ?? '')}`,
    `ct=${ct}`,
    `limit=${limit}`,
    `pend=${pend}`,
    `reuse=${reuse}`,
  ].join('\n');
  return ['bash', '-c', `${prelude}\n${FAN_OUT}`, argv0, ...nodes];
}

export interface NodeAnswer {
  /** Output lines: stdout, then stderr when the exit code is not 0. */
  lines: string[];
  /** Exit code; null when the marker was missing (the output was cut). */
  rc: number | null;
}

/** Splits the fan-out's stdout into each node's answer, by the name as given. */
export function splitNodeAnswers(stdout: string): Map<string, NodeAnswer> {
  const byNode = new Map<string, NodeAnswer>();
  let cur: NodeAnswer | null = null;
  for (const line of stdout.split('\n')) {
    if (line.startsWith(NODE_MARK)) byNode.set(line.slice(NODE_MARK.length), (cur = { lines: [], rc: null }));
    else if (line.startsWith(RC_MARK) && cur) {
      cur.rc = Number(line.slice(RC_MARK.length));
      cur = null;
    } else if (cur) cur.lines.push(line);
  }
  return byNode;
}

/** Why a node could not be reached, from its answer; null when it was reached (whatever its script said). */
export function unreachableReason(answer: NodeAnswer | undefined, limitSec = 30): string | null {
  if (!answer) return 'no answer from the fan-out script';
  if (answer.rc === SSH_FAILED) return 'ssh to the node failed (check that the head can ssh to it without a password)';
  if (answer.rc !== null && TIMED_OUT.includes(answer.rc)) return `no answer within ${limitSec} s`;
  if (answer.rc === null) return 'the answer was cut off';
  return null;
}
