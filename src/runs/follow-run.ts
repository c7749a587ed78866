// Following a run's stdout.log (the single source: the controller's output and, with Ray, every
// worker's) through the Transport, into trainer events. Each byte is read once, by one
// TrainerLogReader (src/trainer-log: the events, the checkpoint saves among them in log order, the
// log pane's lines): the transport resumes by byte offset across reconnects, and any overlap it
// might still deliver is cut off here by offset, never by "step number already seen" (steps
// legitimately repeat after a resume).
import type { Transport, FollowEvent, FollowHandle, FollowProblem, FollowWake } from '../remote/transport.js';
import {
  TrainerLogReader,
  type CheckpointSaveEvent,
  type LogLine,
  type ReaderEvent,
  type TrainerEvent,
} from '../trainer-log/index.js';

export interface FollowRunOptions {
  /** Continue from this byte offset (with the same `reader`, so a record cut mid-way completes). */
  fromOffset?: number;
  reader?: TrainerLogReader;
  onEvent(e: TrainerEvent): void;
  /** The trainer's `Saving … checkpoints` records (no event of the contract: the health rules'),
   *  in log order among the events. Without it they are dropped. */
  onSave?(e: CheckpointSaveEvent): void;
  /** The log pane's cleaned lines (tables collapsed) of each delivery, after its records. Without
   *  it (and without a `reader` that makes them) no lines are made. */
  onLines?(lines: LogLine[]): void;
  /** The log was truncated or replaced: what came before no longer applies. */
  onReset?(reason: string): void;
  /** The log cannot be followed although the connection works (what, where, what to do), or null:
   *  it is read again. Without it, nothing says why no events come. */
  onProblem?(problem: FollowProblem | null): void;
  /** Fresh bytes arrived (overlaps cut): how many, before they are read. */
  onFresh?(bytes: number): void;
  /** After each delivery's records were handed on: reading stands at `offset` bytes. */
  onConsumed?(offset: number): void;
}

export interface RunFollower {
  /** Bytes of the log consumed so far (a restart point together with `reader`). */
  readonly offset: number;
  /** How the target's follower learns of changes (FollowHandle.wake). */
  readonly wake: FollowWake | null | undefined;
  readonly reader: TrainerLogReader;
  /** Waits until everything up to the file's current size is parsed, flushes the parser's last
   *  record, and stops following. For the end of a run. Gives up after `timeoutMs` without
   *  progress while connected, or when the transport fails: resolves false then (the log's tail
   *  was not read), true when everything was. */
  /** exit: how the run ended, when known (it settles the end record the parser holds). */
  finish(timeoutMs?: number, exit?: { completed: boolean }): Promise<boolean>;
  close(): void;
}

export function followRun(transport: Transport, logPath: string, opts: FollowRunOptions): RunFollower {
  const reader = opts.reader ?? new TrainerLogReader({ lines: opts.onLines !== undefined });
  let consumed = opts.fromOffset ?? 0;
  let handle: FollowHandle | null = null;
  let closed = false;
  const emit = (events: readonly ReaderEvent[]) => {
    for (const e of events) {
      if (e.type !== 'save') opts.onEvent(e);
      else opts.onSave?.(e);
    }
  };
  const read = ({ events, lines }: { events: ReaderEvent[]; lines: LogLine[] }) => {
    emit(events);
    if (lines.length) opts.onLines?.(lines);
  };
  const onEvent = (ev: FollowEvent): void => {
    if (closed) return;
    if (ev.type === 'reset') {
      reader.reset();
      consumed = 0;
      opts.onReset?.(ev.reason);
      return;
    }
    if (ev.type === 'problem') {
      opts.onProblem?.(ev.problem);
      return;
    }
    const end = ev.offset + ev.bytes.length;
    if (end <= consumed) return; // already parsed
    const fresh = ev.offset < consumed ? ev.bytes.subarray(consumed - ev.offset) : ev.bytes;
    consumed = end;
    opts.onFresh?.(fresh.length);
    read(reader.push(fresh));
    opts.onConsumed?.(consumed);
  };
  // Borrowed bytes: the reader copies what it keeps (an open line, a table's values), nothing more.
  handle = transport.follow(logPath, consumed, onEvent, { borrowBytes: true });
  const close = () => {
    if (closed) return;
    closed = true;
    handle?.close();
  };
  return {
    get offset() {
      return consumed;
    },
    get wake() {
      return handle?.wake;
    },
    reader,
    async finish(timeoutMs = 15_000, exit?: { completed: boolean }) {
      // The limit is on time WITHOUT progress while connected, not on the whole drain: a follower
      // started after a long run ended has a big backlog, and a drop during the drain (the end
      // of a run is when a laptop sleeps) must wait for the reconnect, not cut the tail off.
      let lastProgress = Date.now();
      let lastConsumed = consumed;
      let drained = false;
      for (;;) {
        const st = transport.state.state;
        if (st === 'failed' || st === 'closed') break;
        let size: number | null = null;
        let missing = false;
        try {
          const s = await transport.stat(logPath);
          if (s) size = s.size;
          else missing = true;
        } catch {
          // The connection dropped under the stat: the transport reconnects (or fails, above).
        }
        if (missing || (size !== null && consumed >= size)) {
          drained = true;
          break;
        }
        const now = Date.now();
        if (consumed !== lastConsumed || transport.state.state !== 'ready') {
          lastConsumed = consumed;
          lastProgress = now;
        } else if (now - lastProgress > timeoutMs) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      close();
      if (exit) emit(reader.flushIdle(exit));
      read(reader.end());
      return drained;
    },
    close,
  };
}
