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

export interface Prefix {
  /** Identifies the writing process: continuation lines carry the same key. */
  key: string;
  /** The event `source`: 'main', a role name, or 'ray'. */
  source: string;
  length: number;
}

const ROLE = /^\[([A-Za-z0-9_.\-/]{1,40})\]/;
// `(Name pid=1, ip=10.0.0.9) `, `(pid=1) `, `(raylet, ip=10.0.0.9) `: a pid or an ip is required.
const RAY = /^\((?:(?:[A-Za-z_][\w.:\-]* )?pid=\d+(?:, ip=[0-9A-Fa-f.:]+)?|[A-Za-z_][\w.:\-]*, ip=[0-9A-Fa-f.:]+)\) ?/;

/** merged.log pads the role prefix to 10 characters (`[main]    `, `[rollout] `); requiring the
 *  exact padding keeps a controller continuation line such as `[step] eps=128` from being
 *  mistaken for a worker. A tag of 10 characters or more (`[eval-rollout]`) gets no space. */
export function matchRolePrefix(line: string): Prefix | null {
  const m = ROLE.exec(line);
  if (!m) return null;
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

/** Ray's log forwarding: `(RayRPCServer pid=48213, ip=10.0.0.9) ` on every line of a worker. */
export function matchRayPrefix(line: string): Prefix | null {
  const m = RAY.exec(line);
  if (!m) return null;
  return { key: m[0].trimEnd(), source: 'ray', length: m[0].length };
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
  const p = line.startsWith('[')
    ? matchRolePrefix(line)
    : line.startsWith('(') && !line.startsWith('(AReaL)')
      ? matchRayPrefix(line)
      : null;
  const body = p ? line.slice(p.length) : line;
  return { source: p?.source ?? 'main', time: body.startsWith('(AReaL) ') ? (parseHeader(body)?.time ?? null) : null };
}
