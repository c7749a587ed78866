// The sentinel's heartbeat (sentinel.json) and what its writes in the run dir say about the disk:
// every write (the beat, the digest, the snapshot) is told to the DiskReport, whose state goes into
// the next beat (`disk`: `runs`, the cockpit, an attached `follow`) and whose alert (disk-watch.ts)
// is one of the sentinel's watch's own (an OutsideAlert): sent to the run's channels like any alert,
// once, and cleared once the writes succeed again.
import { OutsideAlert } from '../watch/outside-alerts.js';
import { diskText, errnoWords, type DiskState } from '../runs/sentinel-disk.js';
import type { SentinelBeat } from '../runs/sentinel-status.js';
import { DiskWatch, diskAlert, type DiskWriter, type WriteResult } from './disk-watch.js';
import { writeInPlace, writeWhole, type BeatWriteError } from './beat-file.js';

export class DiskReport {
  /** Given to the sentinel's watch (RunWatchOptions.outsideAlerts). */
  readonly alert = new OutsideAlert();
  private readonly watch = new DiskWatch();

  constructor(
    /** Where the sentinel runs: the run's head, named in the alert. */
    private readonly host: string,
    private readonly log: (text: string) => void,
  ) {}

  get state(): DiskState | undefined {
    return this.watch.state();
  }

  stateIf(w: DiskWriter, r: WriteResult): DiskState | undefined {
    return this.watch.stateIf(w, r);
  }

  record(w: DiskWriter, r: WriteResult): void {
    const before = this.watch.state();
    if (this.watch.record(w, r)) {
      const now = this.watch.state();
      // Said in sentinel.log, which lives on the same disk: lines written while it is full are lost.
      if (now) this.log(`${diskText(now)}: ${now.error} writing ${now.path} (${now.message ?? errnoWords(now.error)})`);
      else if (before) this.log(`the sentinel's writes in the run dir succeed again (was: ${diskText(before)})`);
    }
    this.alert.set(diskAlert(this.watch.state(), this.host, this.watch.persistent()));
  }

  /** A writer's refused write, as the report takes it. */
  static failed(e: BeatWriteError, at = new Date().toISOString()): WriteResult {
    return { ok: false, path: e.path, code: e.code, message: e.message, at };
  }
}

export type BeatFields = Omit<SentinelBeat, 'disk'>;

export class Heartbeat {
  constructor(
    private readonly path: string,
    private readonly disk: DiskReport,
    private readonly log: (text: string) => void,
  ) {}

  /** sentinel.json, whole (temp + rename); refused, in place (beat-file.ts). Never throws. */
  write(beat: BeatFields): void {
    const ok: WriteResult = { ok: true };
    // The beat says its own write's outcome: written whole, the disk state is as if it succeeded.
    const err = writeWhole(this.path, line(beat, this.disk.stateIf('heartbeat', ok)));
    if (!err) return this.disk.record('heartbeat', ok);
    this.disk.record('heartbeat', DiskReport.failed(err, beat.heartbeatAt));
    const full = { ...beat, ...withDisk(this.disk.state) };
    // Less in it if it does not fit the file's size: the failures' texts can be long.
    const inPlace = writeInPlace(this.path, [JSON.stringify(full), JSON.stringify({ ...full, failures: [] })]);
    if (inPlace) this.log(`heartbeat not written: ${err.message}; nor in place: ${inPlace.message}`);
  }
}

const withDisk = (d: DiskState | undefined): { disk?: DiskState } => (d ? { disk: d } : {});
const line = (beat: BeatFields, d: DiskState | undefined): string => JSON.stringify({ ...beat, ...withDisk(d) });
