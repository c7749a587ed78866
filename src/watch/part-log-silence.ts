// The watch's part that measures the log's silence on the target after each burst of records and
// when the target can be read again (LogSilenceWatch, follow-alerts.ts): once reading stands
// exactly at the size measured, the latest record counts as arriving when the log was last
// written, and the rules look. The first measurement (at attach) is the reading's.
import type { HealthEvent } from '../health/index.js';
import { LogSilenceWatch } from './follow-alerts.js';
import type { WatchCore } from './watch-core.js';
import type { WatchOutput } from './watch-output.js';
import type { WatchPart } from './watch-part.js';

export class LogSilencePart implements WatchPart {
  private readonly watch: LogSilenceWatch;

  constructor(core: WatchCore) {
    this.watch = new LogSilenceWatch({
      transport: core.o.transport,
      logPath: core.o.logPath,
      clock: core.clock,
      // Every record read so far was in the log when it was measured: it was written by then.
      measured: (m) => {
        // Not after a reset or restart, before the file holds a record: the records read so far
        // were never in the file measured.
        if (
          !core.closed &&
          !core.life.restarting &&
          core.readOffset === m.size &&
          core.alerts.logWrittenAt(m.measuredWall - m.silenceMs)
        )
          core.tick();
      },
    });
  }

  onRecord(_e: HealthEvent, backfilled: boolean): void {
    if (!backfilled) this.watch.record();
  }

  /** Back after a lost connection or a silent target: nothing may come, the log's mtime tells. */
  onOutput(out: WatchOutput): void {
    if (out.type === 'connection' && (out.state === 'restored' || out.state === 'answering')) this.watch.record();
  }

  close(): void {
    this.watch.stop();
  }
}
