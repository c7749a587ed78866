// The watch's part that hands the log's cleaned lines to a log pane (RunWatchOptions.lines: the
// cockpit's tail), as `lines` outputs told after the records of the same bytes.
import type { LogLine } from '../trainer-log/index.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';

export class LogLinesPart implements WatchPart {
  readonly wantsLines = true;

  constructor(private readonly core: WatchCore) {}

  onLines(lines: LogLine[] | null): void {
    if (lines) this.core.emit({ type: 'lines', lines });
  }
}
