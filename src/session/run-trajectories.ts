// The Trajectories screen's I/O: the open run's dumps listed over its transport (src/runs's one
// listing script), one record's steps read whole when an episode is opened, and `p`'s pin (the same
// writePin as `episodes --pin`). What it learns goes into SessionState.trajectories.
import { parseRecord, stepViews, type DumpListing } from '../episodes/index.js';
import { listDumps, readDumpRecord } from '../runs/dump-list.js';
import { readDumpSettings } from '../runs/dump-place.js';
import { noDumpsWhy } from '../runs/dump-absent.js';
import { ShotCache, type Shot } from '../runs/dump-shots.js';
import { writePin } from '../runs/pins.js';
import type { RunRecord } from '../runs/index.js';
import type { Transport } from '../remote/transport.js';
import type { TrajectoriesView } from './types.js';

export interface RunTrajectoriesOptions {
  transport: Transport;
  record: RunRecord;
  target: string;
  update: (t: TrajectoriesView) => void;
  notice: (text: string) => void;
  env?: Record<string, string | undefined>;
}

export class RunTrajectories {
  private view: TrajectoriesView;
  private listing: DumpListing | null = null;
  private shots: ShotCache;

  constructor(private readonly o: RunTrajectoriesOptions) {
    this.view = { runId: o.record.runId, episodes: null, sizes: new Map(), problem: null, ...noSteps() };
    this.shots = new ShotCache(o.transport);
  }

  private set(patch: Partial<TrajectoriesView>): void {
    this.view = { ...this.view, ...patch };
    this.o.update(this.view);
  }

  /** List the run's dumps (again). */
  async list(): Promise<void> {
    this.set({ episodes: null, problem: null });
    try {
      const settings = await readDumpSettings(this.o.transport, this.o.record);
      if (!settings.place) return this.set({ problem: `cannot tell where this run dumps: ${settings.why}` });
      const listing = await listDumps(this.o.transport, settings.place);
      this.listing = listing;
      const problem = listing.episodes.length > 0 ? null : noDumpsWhy({ dumpToFile: settings.dumpToFile, listing });
      this.set({ episodes: listing.episodes, sizes: listing.shotSizes, problem });
    } catch (e) {
      this.set({ problem: `listing the dumps failed: ${(e as Error).message}` });
    }
  }

  /** Read one record whole: its steps; then its screenshots, each shown as it arrives (smallest
   *  first, through the one ShotCache: a screenshot crosses the connection once). */
  async openEpisode(file: string): Promise<void> {
    if (this.view.stepsFile === file && this.view.steps !== null) return;
    this.set({ ...noSteps(), stepsFile: file });
    let steps;
    try {
      const parsed = parseRecord(await readDumpRecord(this.o.transport, file));
      if (this.view.stepsFile !== file) return;
      if (!parsed.ok) return this.set({ stepsProblem: parsed.why });
      steps = stepViews(file, parsed.record);
      this.set({ steps });
    } catch (e) {
      if (this.view.stepsFile === file) this.set({ stepsProblem: `reading ${file} failed: ${(e as Error).message}` });
      return;
    }
    const paths = steps.map((v) => v.shot).filter((x): x is string => x !== null);
    const got = new Map<string, Shot>();
    const add = (path: string, s: Shot) => {
      got.set(path, s);
      if (this.view.stepsFile === file) this.set({ shots: new Map(got) });
    };
    try {
      await this.shots.get(paths, this.listing?.shotSizes ?? new Map(), add);
    } catch (e) {
      const why = `not fetched (${(e as Error).message})`;
      for (const p of paths) if (!got.has(p)) add(p, { ok: false, why });
    }
  }

  /** Copy the episode (record and screenshots) to the local pins directory. */
  async pin(file: string): Promise<void> {
    const episode = this.listing?.episodes.find((e) => e.file === file);
    if (!episode || !this.listing) return this.o.notice(`pin: ${file} is not in the listing`);
    try {
      const text = await readDumpRecord(this.o.transport, file);
      const parsed = parseRecord(text);
      if (!parsed.ok) return this.o.notice(`pin: ${file}: ${parsed.why}; not pinned`);
      const paths = stepViews(file, parsed.record)
        .map((v) => v.shot)
        .filter((x): x is string => x !== null);
      const shots = await this.shots.get(paths, this.listing.shotSizes);
      const { dir, pin } = writePin({
        runId: this.o.record.runId,
        target: this.o.target,
        episode,
        recordText: text,
        shots,
        ...(this.o.env ? { env: this.o.env } : {}),
      });
      const missing = pin.missing.length ? ` (${pin.missing.length} screenshots missing)` : '';
      this.o.notice(`pinned ${episode.taskId}/${episode.episodeIdx} of version ${episode.version} to ${dir}${missing}`);
    } catch (e) {
      this.o.notice(`pin failed: ${(e as Error).message}`);
    }
  }
}

const noSteps = () => ({ stepsFile: null, steps: null, stepsProblem: null, shots: new Map<string, Shot>() });
