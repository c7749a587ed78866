// The watch's part that asks when a Slurm run's latest job ends (slurm-job-end.ts, every minute),
// for the wall-time rule; started once the state poll says the run is on Slurm.
import type { RunSummary } from '../runs/list.js';
import { SlurmEndWatch } from './slurm-job-end.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';

export class SlurmEndPart implements WatchPart {
  private jobEnd: SlurmEndWatch | null = null;

  constructor(private readonly core: WatchCore) {}

  onRunState(s: RunSummary): void {
    if (s.record.backend !== 'slurm' || this.jobEnd) return;
    const { target, transport, runId, jobEndPollMs } = this.core.o;
    this.jobEnd = new SlurmEndWatch({
      conn: { target, transport },
      runId,
      findRun: () => (this.core.summary ? { run: this.core.summary } : null),
      onEnd: (end) => {
        this.core.alerts.setSlurmEndTime(end);
        this.core.tick();
      },
      ...(jobEndPollMs !== undefined ? { intervalMs: jobEndPollMs } : {}),
    }).start();
  }

  close(): void {
    this.jobEnd?.close();
  }
}
