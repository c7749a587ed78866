// The watch's part for alerts known outside it (outside-alerts.ts: the run's sentinel gone silent):
// told through the core's alert path like the rules', standing beside them while they stand.
import type { Alert } from '../metrics/index.js';
import type { OutsideAlert } from './outside-alerts.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';

export class OutsideAlertsPart implements WatchPart {
  private readonly off: (() => void)[] = [];

  constructor(
    private readonly core: WatchCore,
    private readonly sources: readonly OutsideAlert[],
  ) {}

  start(): void {
    for (const s of this.sources) this.off.push(s.listen((a) => this.core.tell(a ? [a] : [])));
  }

  standing(): readonly Alert[] {
    return this.sources.map((s) => s.alert).filter((a): a is Alert => a !== null);
  }

  close(): void {
    for (const off of this.off) off();
  }
}
