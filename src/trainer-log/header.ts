// Recognising the pieces of one physical line: who wrote it (a merged.log role prefix, a
// Ray-forwarded prefix, or the controller) and whether it starts an AReaL record.
import { latin1Slice, stripAnsi, toIsoTime } from './text.js';

export type Level = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

export interface RecordHeader {
  time: string;
  logger: string;
  level: Level;
  message: string;
}

// Logger names may contain spaces and brackets (`[FSDPEngine Rank 0]`), so the level is the
// first ` LEVEL:` after the timestamp.
// AReaL before v0.5.2 (2026-01) wrote the same header without `(AReaL) ` (trainer.md §5).
const HEADER = /^(?:\(AReaL\) )?(\d{8}-\d{2}:\d{2}:\d{2}(?:\.\d+)?) (.*?) ?(DEBUG|INFO|WARNING|ERROR|CRITICAL):(?: |$)/;

/** Parses `(AReaL) 20260525-12:19:55.952 StatsLogger INFO: msg`, or the pre-0.5.2 form without
 *  `(AReaL) ` (ANSI already stripped). */
export function parseHeader(body: string): RecordHeader | null {
  const m = HEADER.exec(body);
  if (!m) return null;
  return { time: toIsoTime(m[1]), logger: m[2], level: m[3] as Level, message: body.slice(m[0].length) };
}

// ONE grammar for what precedes a line's own text, read by the parser and by the log pane alike
// (LogLineReader): `matchLinePrefix` (who wrote the line), then `rankPrefixLength` (torchrun's rank).
// The shapes, as the writers print them (docs/trainer.md §4; tables in test/trainer-log/line-prefix.test.ts):
// - merged.log: `f"[{role}]".ljust(10)`: `[main]    `, `[rollout] `, `[eval-rollout]` (no space: 10+).
// - Ray's log forwarding (ray/_private/worker.py print_worker_logs): `(<who>[, ip=<ip>]) <line>`, the
//   parenthesis in colour and a reset before the one space; no `, ip=` for a process on the driver's node.
//   <who> is `[<actor or task name> ]pid=<n>` for a worker (the name is the actor's repr, which may hold
//   spaces and parentheses: `MyActor(index=2) pid=7`), `pid=gcs_server` or `pid=runtime_env` (log_monitor's
//   names for those files), bare `raylet`, or `autoscaler +1m2s` (`scheduler +…` in later Rays).
//   Ray's dedup may append ` [repeated 7x across cluster]` (and once, a note about RAY_DEDUP_LOGS) to the
//   line: RAY_REPEAT, read after a record's reset (line-bytes.ts).
// - torchrun: `[rank0]: ` before a process's lines. `[rank3]:[W1120 …]` is c10's own glog header, not this.
// Anything else is the line's own text: `(raylet)` is Ray's only when Ray could have written it, and a
// controller line such as `[step] eps=128` is not a role (merged.log's padding is exact).

export interface Prefix {
  /** Identifies the writing process: continuation lines carry the same key. */
  key: string;
  /** The event `source`: 'main', a role name, or 'ray'. */
  source: string;
  length: number;
}

const ROLE = /^\[([A-Za-z0-9_.\-/]{1,40})\]/;
const LOWER = /[a-z]/;
const RAY =
  /^\((?:(?:[^\x00-\x1f]{1,200}? )?pid=(?:\d+|gcs_server|runtime_env)|raylet|(?:autoscaler|scheduler) \+(?:\d+h)?(?:\d+m)?\d+s)(?:, ip=[0-9A-Fa-f.:]+)?\)(?: |$)/;

/** Ray's dedup note at the end of a forwarded line. */
export const RAY_REPEAT = / \[repeated \d+x across cluster\](?: \(Ray deduplicates logs by default\.[^)]*\))?$/;

/** The writer's prefix at the start of a line (escape codes already stripped), or null: the one
 *  function the parser and the log pane ask. */
export function matchLinePrefix(line: string): Prefix | null {
  const c = line.charCodeAt(0);
  if (c <= 0x39 && c >= 0x30) {
    // A capture's time stamp first (`docker logs -t`): the prefix is what follows it.
    const d = captureStampLength(line);
    if (d === 0) return null;
    const p = matchLinePrefix(line.slice(d));
    return p ? { ...p, length: p.length + d } : { key: '', source: 'main', length: d };
  }
  if (c === 0x5b /* [ */) return matchRolePrefix(line);
  if (c === 0x28 /* ( */ && !line.startsWith('(AReaL)')) return matchRayPrefix(line);
  return null;
}

/** merged.log pads the role prefix to 10 characters (`[main]    `, `[rollout] `); requiring the
 *  exact padding keeps a controller continuation line such as `[step] eps=128` from being
 *  mistaken for a worker. A tag of 10 characters or more (`[eval-rollout]`) gets no space. */
export function matchRolePrefix(line: string): Prefix | null {
  const m = ROLE.exec(line);
  // AReaL's roles are lower case (actor, rollout, eval-rollout); `[TRAJ_NONE]`, `[EPISODE_TIMEOUT]`
  // start webgym's messages, and print() writes them at a line's start too.
  if (!m || !LOWER.test(m[1])) return null;
  const tagLen = m[0].length;
  // Exactly the padding (the line's own indentation follows it), or a bare prefix on an empty line.
  // `ljust(10)` pads a tag of 10 characters or more with nothing: what follows is the line's own text.
  const pad = tagLen < 10 ? 10 - tagLen : 0;
  for (let i = 0; i < pad; i++) {
    if (tagLen + i === line.length) break;
    if (line.charCodeAt(tagLen + i) !== 0x20) return null;
  }
  return { key: m[0], source: m[1], length: Math.min(line.length, tagLen + pad) };
}

/** Ray's log forwarding: `(RayRPCServer pid=48213, ip=10.0.0.9) ` on every line of a worker,
 *  `(raylet) `, `(pid=gcs_server, ip=…) `, `(autoscaler +3s) ` for Ray's own processes. */
export function matchRayPrefix(line: string): Prefix | null {
  const m = RAY.exec(line);
  if (!m) return null;
  return { key: m[0].trimEnd(), source: 'ray', length: m[0].length };
}

/** `docker logs -t` (and `kubectl logs --timestamps`): an RFC 3339 time and a space before every
 *  line (AReaL-lite's cloud examples ship such captures). Not part of the line. */
const CAPTURE_STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d) /;

/** The length of a capture's time stamp at the start of a line, or 0: read first, before the
 *  writer's prefix. */
export function captureStampLength(line: string): number {
  const c = line.charCodeAt(0);
  if (c < 0x30 || c > 0x39 || line.charCodeAt(4) !== 0x2d || line.charCodeAt(10) !== 0x54 /* T */) return 0;
  const m = CAPTURE_STAMP.exec(line);
  return m ? m[0].length : 0;
}

/** torchrun's per-rank prefix on a process's output (`[rank0]: Traceback …`): not part of the text. */
const RANK = /^\[rank\d+\]: /;

/** The length of a `[rankN]: ` prefix at the start of a line's body, or 0. */
export function rankPrefixLength(body: string): number {
  if (body.charCodeAt(0) !== 0x5b || body.charCodeAt(1) !== 0x72) return 0;
  const m = RANK.exec(body);
  return m ? m[0].length : 0;
}

/** Whose line a cut line was, and its record's time when it starts one, read from its head (the
 *  prefix and header are at most a few hundred bytes): the record-truncated warning names the
 *  writer the person has to look at, as the events of that line do. Cold path: cut lines only. */
export function cutLineOrigin(b: Uint8Array, start: number, end: number): { source: string; time: string | null } {
  const line = stripAnsi(latin1Slice(b, start, Math.min(end, start + 1024)));
  const p = matchLinePrefix(line);
  const body = p ? line.slice(p.length) : line;
  return { source: p?.source ?? 'main', time: body.startsWith('(AReaL) ') ? (parseHeader(body)?.time ?? null) : null };
}
