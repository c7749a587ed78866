// The answer of the target's dump listing (src/runs/dump-list.ts), one frame a line: `L logdir`,
// `M subdir` (missing), `V subdir version`, `P subdir version size name` (a screenshot),
// `S subdir version size name` (a record), then `H subdir version` and `head -v`'s output for that
// directory's records (`==> path <==` and the record's first bytes on one line: json.dumps writes a
// record as one line, newlines inside strings escaped) up to a line `E`. Pure.
import { DUMP_SUBDIR, summaryFromHead, unreadable, type DumpKind, type EpisodeSummary } from './record.js';

export interface DumpListing {
  logDir: string;
  /** Kinds whose directory does not exist (dumping off, or wiped). */
  missing: DumpKind[];
  versions: { kind: DumpKind; version: number }[];
  episodes: EpisodeSummary[];
  /** Records whose head ended before `steps`: read whole (their path, kind, version, size). */
  needMore: { kind: DumpKind; version: number; file: string; fileSize: number }[];
  /** Every screenshot listed: its path on the target → size in bytes. */
  shotSizes: Map<string, number>;
}

const KIND_OF: Record<string, DumpKind> = { [DUMP_SUBDIR.train]: 'train', [DUMP_SUBDIR.eval]: 'eval' };

export function parseListing(out: Buffer): DumpListing {
  const l: DumpListing = { logDir: '', missing: [], versions: [], episodes: [], needMore: [], shotSizes: new Map() };
  const records = new Map<string, DumpListing['needMore'][number]>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    if (nl < 0) break;
    const line = out.subarray(at, nl).toString('utf8');
    at = nl + 1;
    const [tag, ...f] = line.split(' ');
    if (tag === 'L') l.logDir = f.join(' ');
    else if (tag === 'M' && KIND_OF[f[0]]) l.missing.push(KIND_OF[f[0]]);
    else if (tag === 'V' && KIND_OF[f[0]]) l.versions.push({ kind: KIND_OF[f[0]], version: Number(f[1]) });
    else if (tag === 'P' && KIND_OF[f[0]]) {
      l.shotSizes.set(`${l.logDir}/${f[0]}/${f[1]}/${f.slice(3).join(' ')}`, Number(f[2]));
    } else if (tag === 'S' && KIND_OF[f[0]]) {
      const place = {
        kind: KIND_OF[f[0]],
        version: Number(f[1]),
        fileSize: Number(f[2]),
        file: `${l.logDir}/${f[0]}/${f[1]}/${f.slice(3).join(' ')}`,
      };
      records.set(place.file, place);
    } else if (tag === 'H') {
      at = readHeads(out, at, (file, head) => {
        const place = records.get(file);
        if (!place) return;
        records.delete(file);
        const s = summaryFromHead(place, head, Buffer.byteLength(head) >= place.fileSize);
        if (s === 'need-more') l.needMore.push(place);
        else l.episodes.push(s);
      });
    }
  }
  // Records whose head did not come (not asked, or unreadable): read whole, or only counted.
  l.needMore.push(...records.values());
  return l;
}

/** `head -v`'s output up to the line `E`: each `==> path <==` line, then the head's line. Returns where
 *  reading stopped. A line that is not a header is skipped (a file that was not one line). */
function readHeads(out: Buffer, at: number, onHead: (file: string, head: string) => void): number {
  let file: string | null = null;
  while (at < out.length) {
    let nl = out.indexOf(10, at);
    if (nl < 0) nl = out.length;
    const line = out.subarray(at, nl).toString('utf8');
    at = nl + 1;
    if (file !== null) {
      onHead(file, line);
      file = null;
      continue;
    }
    if (line === 'E') break;
    const m = /^==> (.*) <==$/.exec(line);
    if (m) file = m[1];
  }
  return at;
}

/** A record read whole after its head was not enough. */
export function summaryFromWhole(place: DumpListing['needMore'][number], text: string): EpisodeSummary {
  const s = summaryFromHead(place, text, true);
  return s === 'need-more' ? unreadable(place, 'no steps in the record') : s;
}

/** Episodes in the order a reader wants them: newest version first, then task, then index. */
export function sortEpisodes(eps: EpisodeSummary[]): EpisodeSummary[] {
  return [...eps].sort(
    (a, b) =>
      (a.kind === b.kind ? 0 : a.kind === 'train' ? -1 : 1) ||
      b.version - a.version ||
      a.taskId.localeCompare(b.taskId) ||
      a.episodeIdx - b.episodeIdx,
  );
}
