// What `episodes RUN` prints: the table (one row per episode) or one JSON object per episode with
// the record's own field names plus `version`, `kind` and `staleness`.
import { newestVersion, sortEpisodes, stalenessOf, type DumpListing, type EpisodeSummary } from '../episodes/index.js';

const yesNo = (b: boolean | null) => (b === null ? '?' : b ? 'yes' : 'no');
const orQ = (v: number | string | null) => (v === null ? '?' : String(v));

export function episodeJson(e: EpisodeSummary, newest: number | null): Record<string, unknown> {
  const base = e.problem
    ? { task_id: e.taskId, episode_idx: e.episodeIdx, problem: e.problem }
    : { ...e.raw, screenshot_paths: e.screenshotPaths };
  return { ...base, version: e.version, kind: e.kind, staleness: stalenessOf(e, newest), file: e.file };
}

export function episodeTable(l: DumpListing): string[] {
  const eps = sortEpisodes(l.episodes);
  const newest = newestVersion(eps);
  const head = ['VERSION', 'KIND', 'TASK/EP', 'WEBSITE', 'DIFF', 'REWARD', 'STEPS', 'TIMED-OUT', 'BLOCKED', 'STALE'];
  const rows = eps.map((e) => [
    String(e.version),
    e.kind,
    `${e.taskId}/${e.episodeIdx}`,
    (e.taskInfo.website ?? '?').replace(/^https?:\/\/(www\.)?/, ''),
    orQ(e.taskInfo.difficulty),
    e.reward === null ? '?' : e.reward.toFixed(2),
    orQ(e.nSteps),
    yesNo(e.timedOut),
    yesNo(e.isBlocked),
    orQ(stalenessOf(e, newest)),
    e.problem ?? '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < widths.length ? c.padEnd(widths[i]) : c))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

export function listingHeader(runId: string, l: DumpListing): string {
  const newest = newestVersion(l.episodes);
  const versions = new Set(l.versions.map((v) => `${v.kind}:${v.version}`)).size;
  const stale = newest === null ? '' : `; STALE = ${newest} (the newest version dumped) − the group's head version`;
  return `run ${runId}: ${l.episodes.length} episodes in ${versions} version directories under ${l.logDir}${stale}`;
}
