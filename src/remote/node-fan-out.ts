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
  /** A node's whole answer must arrive within this (default 30 s): a hung node must not hang the round. */
  nodeTimeoutSec?: number;
}

// The values come first as single-quoted assignments (shellQuote: POSIX quotes are valid bash), the
// nodes as "$@". ServerAlive*: a path that dies mid-answer is noticed in ~10 s, not hours.
const FAN_OUT = String.raw`
set -u
cfg=@{cfg:-@{AWRL_NODE_SSH_CONFIG:-}}
d=$(mktemp -d) || exit 1
i=0
for h in "$@"; do
  i=$((i+1))
  {
    if [ "$h" = '${HEAD_NODE}' ]; then printf '%s\n' "$body" | timeout -k 2 "$limit" bash -s
    else printf '%s\n' "$body" | timeout -k 2 "$limit" ssh -o BatchMode=yes -o ConnectTimeout="$ct" \
      -o ServerAliveInterval=5 -o ServerAliveCountMax=2 @{cfg:+-F "$cfg"} -- "$h" bash -s; fi
    echo $? >"$d/$i.rc"
  } >"$d/$i" 2>"$d/$i.err" &
done
wait
i=0
for h in "$@"; do
  i=$((i+1)); rc=$(cat "$d/$i.rc" 2>/dev/null || echo 255)
  echo "${NODE_MARK}$h"; cat "$d/$i"; [ "$rc" = 0 ] || cat "$d/$i.err"; echo "${RC_MARK}$rc"
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
export function nodeFanOutArgv(argv0: string, script: string, args: readonly string[], nodes: readonly string[], opts: NodeFanOutOptions = {}): string[] {
  checkNodeNames(nodes);
  const ct = Math.max(1, Math.round(opts.connectTimeoutSec ?? 5));
  const limit = Math.max(1, Math.round(opts.nodeTimeoutSec ?? 30));
  const prelude = [`body=${shellQuote(nodeScriptBody(script, args))}`, `cfg=${shellQuote(opts.sshConfigFile ?? '')}`, `ct=${ct}`, `limit=${limit}`].join('\n');
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
