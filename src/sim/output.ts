// Where each record goes, for the scheduler in use (docs/trainer.md §4): controller records to
// main.log, merged.log and stdout; worker records to merged.log + <role>.log (local, slurm) or to the
// controller's stdout through Ray's per-line prefix (ray). Appends synchronously so a reader that
// follows the files by byte offset always sees whole records.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type LogRecord,
  formatRecord,
  renderMain,
  renderMergedMain,
  renderStdoutMain,
  prefixEveryLine,
  mergedPrefix,
  rayPrefix,
} from './records.js';
import type { TruthEvent, Output } from './truth.js';
import type { TrainerEvent } from '../trainer-log/events.js';
import { eventToJsonLine } from '../trainer-log/event-json.js';
import type { SchedulerType } from './plan.js';
import { makeDirs } from './make-dirs.js';

export interface OutputOptions {
  logDir: string;
  scheduler: SchedulerType;
  /** Where the trainer's stdout goes (the process's own stdout in real use). */
  writeStdout: (text: string) => void;
  /** Append ground-truth events here (JSON lines) when set. */
  truthPath?: string;
  /** Ray worker identity for forwarded lines. */
  rayPid?: number;
  rayIp?: string;
}

export class SimOutput {
  private fileLogging = false;
  constructor(private readonly o: OutputOptions) {}

  /** The trainer sets up main.log/merged.log only once its config is read: before that, stdout only. */
  startFileLogging(): void {
    makeDirs(this.o.logDir);
    this.fileLogging = true;
  }

  private file(name: string, text: string): void {
    appendFileSync(join(this.o.logDir, name), text);
  }

  private truth(ev: TrainerEvent | undefined, where: Output[]): void {
    if (!ev || !this.o.truthPath || where.length === 0) return;
    const line: TruthEvent = { ...ev, where } as TruthEvent;
    // As `parse --json` writes events: a nan stats value stays "nan" (JSON.stringify would write null).
    appendFileSync(this.o.truthPath, eventToJsonLine(line) + '\n');
  }

  controller(rec: LogRecord, ev?: TrainerEvent): void {
    if (this.fileLogging) {
      this.file('main.log', renderMain(rec));
      this.file('merged.log', renderMergedMain(rec));
    }
    this.o.writeStdout(renderStdoutMain(rec));
    this.truth(ev, this.fileLogging ? ['main', 'merged', 'stdout'] : ['stdout']);
  }

  /** A ground-truth event with no record of its own now (an eval round the parser emits later,
   *  with the next step's table). */
  truthOnly(ev: TrainerEvent): void {
    this.truth(ev, this.fileLogging ? ['main', 'merged', 'stdout'] : ['stdout']);
  }

  /** A line the controller process prints itself, not through its logger (wandb's banner): on
   *  its stdout/stderr only, never in main.log or merged.log. */
  controllerRaw(text: string, ev?: TrainerEvent): void {
    this.o.writeStdout(text + '\n');
    this.truth(ev, ['stdout']);
  }

  /** A record logged inside a worker process of `role` (actor, rollout, ...). */
  worker(role: string, rec: LogRecord, ev?: TrainerEvent): void {
    this.workerText(role, formatRecord(rec), ev);
  }

  /** A plain line a worker printed (no log header), e.g. `TaskMonitor dashboard running at ...`. */
  workerRaw(role: string, line: string): void {
    this.workerText(role, line, undefined);
  }

  private workerText(role: string, text: string, ev: TrainerEvent | undefined): void {
    if (this.o.scheduler === 'ray') {
      this.o.writeStdout(prefixEveryLine(text, rayPrefix(this.o.rayPid ?? 48213, this.o.rayIp ?? '10.0.0.9')));
      this.truth(ev ? ({ ...ev, source: 'ray' } as TrainerEvent) : undefined, ['stdout']);
      return;
    }
    if (!this.fileLogging) return;
    this.file('merged.log', prefixEveryLine(text, mergedPrefix(role)));
    this.file(`${role}.log`, text + '\n');
    this.truth(ev ? ({ ...ev, source: role } as TrainerEvent) : undefined, ['merged']);
  }
}
