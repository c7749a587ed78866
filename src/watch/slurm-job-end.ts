// When a run's Slurm job ends (squeue %e: its start plus its time limit, or Slurm's estimate while
// it is pending), for the health rule that warns when the allocation ends before the next recover
// checkpoint (src/health walltime.ts, fed through RunAlerts.setSlurmEndTime). The cockpit and
// `follow` both ask here: squeue on the target, after its setup line as every Slurm command, about
// the run's LATEST job (a requeue or --auto-resume moves the run to a new one), again every minute:
// an admin's `scontrol update TimeLimit=` moves the end while the run is watched.
import type { Transport } from '../remote/transport.js';
import { setupInWorkdir, type Target } from '../runs/targets.js';
import type { RunSummary } from '../runs/list.js';
import { isTerminal } from '../runs/run-state.js';

/** squeue's time format, zone-less: the cluster's local time, the same clock as the trainer's log. */
const SLURM_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/;

/** Where to ask: the run's target and a transport to it. */
export interface JobEndConnection {
  target: Target;
  transport: Transport;
}

/** The job id of the run's latest attempt on Slurm, or null (a direct run, none submitted yet). */
export function latestSlurmJob(run: RunSummary): string | null {
  if (run.record.backend !== 'slurm') return null;
  return [...run.record.attempts].reverse().find((a) => a.jobId)?.jobId ?? null;
}

/** The end of the run's latest Slurm job as squeue prints it (`2026-05-25T18:00:00`), or null: not a
 *  Slurm run, the job is gone from squeue, or it has no end (`N/A`, `NONE`: no time limit). */
export async function slurmJobEnd(conn: JobEndConnection, run: RunSummary): Promise<string | null> {
  const job = latestSlurmJob(run);
  if (!job) return null;
  const script = '[ -n "$2" ] && { eval "$2"; } >/dev/null 2>&1 </dev/null; squeue -h -j "$1" -o %e';
  const r = await conn.transport.exec(['bash', '-c', script, 'awrl-job-end', job, setupInWorkdir(conn.target)]);
  const end = r.stdout.toString('utf8').trim();
  return r.code === 0 && SLURM_TIME.test(end) ? end : null;
}

export interface SlurmEndWatchOptions {
  conn: JobEndConnection;
  runId: string;
  /** The run as the caller knows it now (its latest job, its state): the cockpit's runs list,
   *  `follow`'s state watcher. */
  findRun(runId: string): { run: RunSummary } | null;
  /** Told the end whenever it changes (null: none known). */
  onEnd(end: string | null): void;
  intervalMs?: number;
}

/** Asks for the run's job end now and every minute while the run may still run. Start it once the
 *  run is known: a run not found (or not on Slurm) at a tick ends the watch (it never gets an end). */
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
    if (!isTerminal(run.state)) {
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
