// `awrl-tui episodes RUN --target T [--version V] [--task ID] [--json]`: a run's dumped episodes;
// `--show TASK/EP [--step N] [--images MODE]` one episode at the terminal; `--pin TASK/EP` a copy here.
import type { Target } from '../runs/targets.js';
import { readRecord } from '../runs/launch.js';
import { runsRoot } from '../runs/list.js';
import { parseCli } from '../runs/cli-target.js';
import { listDumps, readDumpRecord } from '../runs/dump-list.js';
import { readDumpSettings } from '../runs/dump-place.js';
import { noDumpsWhy } from '../runs/dump-absent.js';
import { ShotCache } from '../runs/dump-shots.js';
import { writePin } from '../runs/pins.js';
import type { RunRecord } from '../runs/run-record.js';
import { IMAGE_MODES, type ImageModeWanted } from '../images/detect.js';
import type { DumpListing } from '../episodes/index.js';
import type { Transport } from '../remote/transport.js';
import { connectOrExit } from './connect-target.js';
import { CliError, EXIT } from './errors.js';
import { targetWords } from './cli-words.js';
import { withJsonErrors } from './json-errors.js';
import { cliTarget } from './run-errors.js';
import { noRunError } from './no-run.js';
import { episodeJson, episodeTable, listingHeader } from './episodes-lines.js';
import { findEpisode, showEpisode } from './episode-show.js';
import { chooseImages } from './terminal-images.js';
import { newestVersion, stepViews, parseRecord, sortEpisodes } from '../episodes/index.js';

const USAGE =
  'usage: awrl-tui episodes RUN --target T [--version V] [--task ID] [--json]\n' +
  '       awrl-tui episodes RUN --target T --show TASK/EP [--step N] [--version V] [--images MODE]\n' +
  '       awrl-tui episodes RUN --target T --pin TASK/EP [--version V]';

export const run = (args: string[]): Promise<number> => withJsonErrors(args, () => episodes(args));

const whole = (name: string, v: string | undefined): number | undefined => {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new CliError(`${name} needs a whole number, not '${v}'\n${USAGE}`, EXIT.usage);
  return Number(v);
};

async function episodes(args: string[]): Promise<number> {
  let p;
  try {
    p = parseCli(args, {
      values: ['--version', '--task', '--show', '--step', '--pin', '--images'],
      switches: ['--json', '--accept-new-host-key'],
    });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n${USAGE}`, EXIT.usage);
  }
  const [runId, ...extra] = p.positional;
  if (!runId) throw new CliError(`episodes needs a RUN id (see awrl-tui runs --target T)\n${USAGE}`, EXIT.usage);
  if (extra.length) throw new CliError(`unexpected argument '${extra[0]}'\n${USAGE}`, EXIT.usage);
  const version = whole('--version', p.values['--version']);
  const step = whole('--step', p.values['--step']) ?? null;
  const images = (p.values['--images'] ?? 'auto') as ImageModeWanted;
  if (!IMAGE_MODES.includes(images))
    throw new CliError(`--images takes ${IMAGE_MODES.join('|')}, not '${images}'`, EXIT.usage);
  const target: Target = cliTarget(p.flags);
  const transport = await connectOrExit(target, { acceptNewHostKey: p.switches.has('--accept-new-host-key') });
  try {
    const record = await readRecord(transport, `${runsRoot(target)}/${runId}`).catch(() => null);
    if (!record) throw await noRunError(transport, target, runId, `awrl-tui runs ${targetWords(args)}`);
    const listing = await listRun(transport, record, version, args);
    if (p.values['--show'] !== undefined) {
      const choice = await chooseImages(images);
      const write = (s: string) => process.stdout.write(s);
      const columns = process.stdout.columns ?? 100;
      return await showEpisode({ transport, listing, spec: p.values['--show'], step, images: choice, columns, write });
    }
    if (p.values['--pin'] !== undefined) return await pin(transport, target, runId, listing, p.values['--pin']);
    const task = p.values['--task'];
    if (task !== undefined) listing.episodes = listing.episodes.filter((e) => e.taskId === task);
    if (p.switches.has('--json')) {
      const newest = newestVersion(listing.episodes);
      for (const e of sortEpisodes(listing.episodes))
        process.stdout.write(`${JSON.stringify(episodeJson(e, newest))}\n`);
    } else {
      process.stderr.write(`${listingHeader(runId, listing)}\n`);
      process.stdout.write(`${episodeTable(listing).join('\n')}\n`);
    }
    return EXIT.ok;
  } finally {
    await transport.close().catch(() => undefined);
  }
}

async function listRun(
  t: Transport,
  record: RunRecord,
  version: number | undefined,
  args: string[],
): Promise<DumpListing> {
  const settings = await readDumpSettings(t, record);
  if (!settings.place)
    throw new CliError(`cannot tell where run ${record.runId} dumps: ${settings.why}`, EXIT.usage, {
      code: 'no-dumps',
    });
  const listing = await listDumps(t, settings.place, { version });
  if (listing.episodes.length > 0) return listing;
  const why = noDumpsWhy({ dumpToFile: settings.dumpToFile, listing, ...(version !== undefined ? { version } : {}) });
  throw new CliError(`no trajectory dumps for run ${record.runId}: ${why}`, EXIT.usage, {
    code: 'no-dumps',
    hint: version !== undefined ? `awrl-tui episodes ${record.runId} ${targetWords(args)}` : '',
  });
}

async function pin(t: Transport, target: Target, runId: string, listing: DumpListing, spec: string): Promise<number> {
  const { episode } = findEpisode(listing, spec);
  const text = await readDumpRecord(t, episode.file);
  const parsed = parseRecord(text);
  if (!parsed.ok)
    throw new CliError(`${episode.file}: ${parsed.why}; not pinned`, EXIT.failed, { code: 'remote-failed' });
  const paths = stepViews(episode.file, parsed.record)
    .map((v) => v.shot)
    .filter((x): x is string => x !== null);
  const shots = await new ShotCache(t).get(paths, listing.shotSizes);
  const { dir, pin: p } = writePin({ runId, target: target.name, episode, recordText: text, shots });
  const missing = p.missing.length ? ` (${p.missing.length} screenshots missing: ${p.missing[0].why})` : '';
  process.stdout.write(`pinned ${spec} of version ${episode.version} to ${dir}${missing}\n`);
  return EXIT.ok;
}
