// When the open run's Slurm job ends (squeue %e: its start plus its time limit, or Slurm's estimate
// while it is pending), for the health rule that warns when the allocation ends before the next
// recover checkpoint (src/health walltime.ts). `follow` has no job end to give; the cockpit asks
// squeue on the target, after its setup line as every Slurm command, about the run's LATEST job
// (a requeue or --auto-resume moves the run to a new one), and asks again every minute: an admin's
// `scontrol update TimeLimit=` moves the end while the run is watched.
import { setupInWorkdir, type RunSummary as RunsSummary } from '../../runs/index.js';
import { ENDED_STATES, type RunState } from './types.js';
import type { TargetConnection } from './live-options.js';

/** squeue's time format, zone-less: the cluster's local time, the same clock as the trainer's log. */
const SLURM_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;

/** The job id of the run's latest attempt on Slurm, or null (a direct run, none submitted yet). */
export function latestSlurmJob(run: RunsSummary): string | null {
  if (run.record.backend !== 'slurm') return null;
  return [...run.record.attempts].reverse().find((a) => a.jobId)?.jobId ?? null;
}

/** The end of the run's latest Slurm job as squeue prints it (`2026-05-25T18:00:00`), or null: not a
 *  Slurm run, the job is gone from squeue, or it has no end (`N/A`, `NONE`: no time limit). */
export async function slurmJobEnd(conn: TargetConnection, run: RunsSummary): Promise<string | null> {
  const job = latestSlurmJob(run);
  if (!job) return null;
  const script = '[ -n "$2" ] && { eval "$2"; } >/dev/null 2>&1 </dev/null; squeue -h -j "$1" -o %e';
  const r = await conn.transport.exec(['bash', '-c', script, 'awrl-job-end', job, setupInWorkdir(conn.target)]);
  const end = r.stdout.toString('utf8').trim();
  return r.code === 0 && SLURM_TIME.test(end) ? end : null;
}

export interface SlurmEndWatchOptions {
  conn: TargetConnection;
  runId: string;
  /** The run as the runs list knows it now (its latest job, its state). */
  findRun(runId: string): { run: RunsSummary } | null;
  /** Told the end whenever it changes (null: none known). */
  onEnd(end: string | null): void;
  intervalMs?: number;
}

/** Asks for the open run's job end now and every minute while the run may still run. */
export class SlurmEndWatch {
  private timer: NodeJS.Timeout | null = null;
  private last: string | null = null;
  private closed = false;

  constructor(private readonly o: SlurmEndWatchOptions) {}

  start(): this {
    void this.tick();
    return this;
  }

  private async tick(): Promise<void> {
    const run = this.o.findRun(this.o.runId)?.run;
    // A direct run never gets one; an ended run's job is over (the state watcher says TIMEOUT).
    if (!run || run.record.backend !== 'slurm') return;
    if (!ENDED_STATES.has(run.state as RunState)) {
      const end = await slurmJobEnd(this.o.conn, run).catch(() => this.last);
      if (this.closed) return;
      if (end !== this.last) {
        this.last = end;
        this.o.onEnd(end);
      }
    }
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), this.o.intervalMs ?? 60_000);
    this.timer.unref?.();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
