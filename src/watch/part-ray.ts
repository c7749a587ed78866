// The watch's part that reads a Slurm run's Ray bring-up from the batch script's `awrl: starting
// Ray` lines (ray-bringup-log.ts): the attempt's phase from its first such line to the trainer's
// first record, told as `ray` outputs (null: over).
import type { HealthEvent } from '../health/index.js';
import type { LogLine } from '../trainer-log/index.js';
import { RayBringUpLines, type RayBringUp } from './ray-bringup-log.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';

export class RayPhasePart implements WatchPart {
  readonly wantsLines = true;
  private readonly ray = new RayBringUpLines();
  /** The attempt's Ray bring-up while it is the run's phase (null: not in bring-up). */
  private bringUp: RayBringUp | null = null;
  /** Records the follower read since its last delivery's lines were told (not the history's: a
   *  digest's records, or none through a watch snapshot, came before any line it tells). */
  private records = 0;

  constructor(private readonly core: WatchCore) {}

  get current(): RayBringUp | null {
    return this.bringUp;
  }

  onRecord(e: HealthEvent, backfilled: boolean): void {
    // The trainer's first record after the bring-up's lines: the bring-up is over.
    if (e.type === 'save') return;
    if (!backfilled) this.records++;
    if (this.bringUp) this.end();
  }

  onLines(lines: LogLine[] | null): void {
    const records = this.records;
    this.records = 0;
    if (!lines) return;
    let last = -1;
    lines.forEach((l, i) => {
      for (const update of this.ray.push(`${l.text}\n`)) {
        this.bringUp = update;
        last = i;
        this.core.emit({ type: 'ray', update });
      }
    });
    // Records of the same bytes were read before these lines were told: the trainer's lines after
    // the last bring-up line (a whole log read at once) mean they came after it, the phase is over.
    if (this.bringUp && records > 0 && last >= 0 && lines.slice(last + 1).some((l) => !l.text.startsWith('awrl: ')))
      this.end();
  }

  onReset(): void {
    this.ray.reset();
    if (this.bringUp) this.end();
  }

  private end(): void {
    this.bringUp = null;
    this.core.emit({ type: 'ray', update: null });
  }
}
