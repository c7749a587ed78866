// Whether the controller's `Training completes!` record means the run completed. StatsLogger.close()
// writes it on EVERY exit (trainer.md §5): AsyncWebRL's RLTrainer.__exit__ calls close() and then
// raises, so a crash writes the end record first and its traceback after it; current upstream
// AReaL logs `Training failed with exception: …` (with its traceback) first, then the end record,
// then Python prints the uncaught traceback again. Both close() methods go on after the end record:
// they destroy the rollout and train controllers, which log records of their own (`Workers
// deleted`, `Destroying TrainController...`) before the exception propagates. So the end record is
// held until the process is known to be over: the input's end, the launcher's attempt marker, the
// exit status, or the first record of a new process (a Recover record, a train step). A controller
// error next to it, before or after it in the same attempt, makes it a failure: no `finished`.
import type { ErrorEvent, FinishedEvent } from './events.js';
import type { RecordHeader } from './header.js';
import type { EventOut } from './event-out.js';
import { STEP_DONE } from './classify.js';

export class EndRecord {
  /** The end record, not yet known to be a completion. */
  private held: FinishedEvent | null = null;
  /** The controller's latest record was an error (no other controller record since). */
  private afterError = false;
  /** Upstream's `Training failed with exception` was logged in this attempt. */
  private failed = false;

  constructor(private readonly out: EventOut) {}

  /** An error of the controller: a logged one (emitted when its record closes) or a bare
   *  traceback. After a held end record, it is the crash that record was written for. */
  error(ev: ErrorEvent): void {
    this.held = null;
    this.afterError = true;
    if (ev.message.startsWith('Training failed with exception')) this.failed = true;
  }

  /** The controller's next record header, before it is read. A record of close()'s teardown
   *  (any record that is not an error) leaves a held end record held; an error drops it (see
   *  error()). The first record of a new trainer process (a fresh start, a resume, a train step:
   *  close() logs none) means the old one is over: like the attempt marker (newAttempt). */
  record(h: RecordHeader): void {
    this.afterError = false;
    // Whether a new process starts matters only to a held end record or an attempt's failure:
    // as a rule neither, and the message is not searched (every controller record comes here).
    if (this.held === null && !this.failed) return;
    const m = h.message;
    const newProcess =
      m.startsWith('Resume info not found') || m.includes('Recovering from StepInfo(') || STEP_DONE.test(m);
    if (this.held !== null && newProcess) {
      this.out.emit(this.held);
      this.held = null;
    }
    if (newProcess) this.failed = false;
  }

  /** The end record itself (after record() for its header). */
  end(ev: FinishedEvent, errorBefore: boolean): void {
    if (errorBefore || this.failed) return;
    this.held = ev;
  }

  /** The launcher's attempt marker: whatever the last process wrote, a new one starts. Its
   *  held end record was not contradicted by its own output: a completion. */
  newAttempt(): void {
    if (this.held !== null) this.out.emit(this.held);
    this.held = null;
    this.afterError = false;
    this.failed = false;
  }

  /** The trainer process ended as the caller knows (its exit status): the held end record is a
   *  completion only if the process completed. */
  settle(completed: boolean): void {
    if (this.held !== null && completed) this.out.emit(this.held);
    this.held = null;
  }

  /** The input ended: a held end record that nothing contradicted is a completion. */
  close(): void {
    if (this.held !== null) this.out.emit(this.held);
    this.reset();
  }

  reset(): void {
    this.held = null;
    this.afterError = false;
    this.failed = false;
  }

  /** The controller's previous record was an error (asked before record() forgets it). */
  get errorJustBefore(): boolean {
    return this.afterError;
  }

  /** Nothing held or remembered: a fresh parser would read on the same. */
  get atRest(): boolean {
    return this.held === null && !this.afterError && !this.failed;
  }
}
