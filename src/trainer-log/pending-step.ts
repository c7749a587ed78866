// The controller's train step, assembled from its records: `Epoch … Train step g/n done.` opens
// it, `Stats (i/n):` says how many tables follow, each table's record (an empty message) lets
// box lines in, and the last table's bottom line completes it. Only one step is pending at a
// time; any other controller record in between ends it, reported incomplete.
import type { StepEvent } from './events.js';
import type { RecordHeader } from './header.js';
import { STATS_PART, STEP_DONE } from './classify.js';
import { TableBuilder, tableLineKind, viewOf } from './table.js';
import { stripAnsiBytes } from './line-bytes.js';
import { KeyInterner, ValueArena, printedCells, type StepCells } from './table-cells.js';
import { StatsShapes, lazyStep } from './stats-shapes.js';
import { writeStepJson } from './step-json.js';
import type { EventOut } from './event-out.js';

export interface PendingStep {
  head: Omit<StepEvent, 'stats'>;
  /** The cells of its tables so far; their value bytes are in the assembler's arena. */
  cells: StepCells;
  expected: number;
  done: number;
  /** The table record header (empty message) has been seen: box lines belong to this step. */
  inTable: boolean;
  table: TableBuilder | null;
  truncated: boolean;
}

/** Owns the pending step and what its tables are read into; its state outlives each step (the
 *  key memory, the key-set shapes, the reused arena and cell arrays), which is what makes the
 *  next step of the same layout cheap. */
export class StepAssembler {
  /** The step being assembled, read by the parser's table-line fast path. */
  step: PendingStep | null = null;
  private readonly intern = new KeyInterner();
  private readonly shapes = new StatsShapes();
  private readonly arena = new ValueArena();
  /** The cells of the pending step (one step is pending at a time). */
  private readonly cells: StepCells = { n: 0, keys: [], starts: [], ends: [], json: [] };
  private readonly tables: TableBuilder;
  /** Called with a complete step's cells before the step is emitted (the parser's eval rounds). */
  beforeStep: ((cells: StepCells, arena: ValueArena) => void) | null = null;
  /** A row without its escape codes (rare: see TableBuilder.addRow). */
  private scratch: Buffer = Buffer.allocUnsafe(256);

  /** fast false: no remembered key layouts or stats shapes (see ParserOptions.fastPaths). */
  constructor(
    private readonly maxRecord: number,
    private readonly out: EventOut,
    private readonly fast = true,
  ) {
    this.tables = new TableBuilder(maxRecord, this.intern, this.arena, fast);
  }

  /** Handles a controller record that belongs to a train step; true when it did. Any other
   *  record first closes the pending step. */
  header(h: RecordHeader): boolean {
    const msg = h.message;
    const step = this.step;
    if (step !== null) {
      const part = STATS_PART.exec(msg);
      if (part && !step.inTable) {
        step.expected = Math.max(step.expected, Number(part[2]));
        return true;
      }
      if (msg.trim() === '' && !step.inTable && step.done < step.expected) {
        step.inTable = true;
        return true;
      }
      this.close(false);
    }
    const m = STEP_DONE.exec(msg);
    if (!m) return false;
    this.arena.len = 0;
    this.cells.n = 0;
    this.step = {
      head: {
        type: 'step',
        epoch: +m[1],
        epochs: +m[2],
        step: +m[3],
        stepsPerEpoch: +m[4],
        globalStep: +m[5],
        totalSteps: +m[6],
        time: h.time,
      },
      cells: this.cells,
      expected: 1,
      done: 0,
      inTable: false,
      table: null,
      truncated: false,
    };
    return true;
  }

  /** A box line of the step's open table, bytes [start, end). */
  tableLine(step: PendingStep, b: Uint8Array, dv: DataView, start: number, end: number): void {
    const kind = tableLineKind(b, start);
    if (kind === 'row') {
      if (step.table === null) step.table = this.tables.reset();
      if (!step.table.addRow(b, dv, start, end)) {
        // Escape codes inside the row's cells: read without them, as the general path does.
        if (this.scratch.length < end - start) this.scratch = Buffer.allocUnsafe(end - start);
        const n = stripAnsiBytes(b, start, end, this.scratch);
        if (n >= 0) step.table.addRow(this.scratch, viewOf(this.scratch), 0, n);
      }
    } else if (kind === 'top') {
      step.table = this.tables.reset();
    } else if (kind === 'bottom') {
      const t = step.table ?? this.tables.reset();
      t.collect(step.cells);
      if (t.truncated) step.truncated = true;
      step.table = null;
      step.inTable = false;
      step.done++;
      if (step.done >= step.expected) this.close(false);
    }
  }

  /** Emits the pending step if all its tables are complete; otherwise reports it incomplete. */
  close(atEnd: boolean): void {
    const step = this.step;
    if (step === null) return;
    this.step = null;
    const { head } = step;
    const out = this.out;
    if (step.done >= step.expected) {
      const { cells } = step;
      // The exact key list (the reused array may hold more from a bigger step).
      if (cells.keys.length !== cells.n) cells.keys.length = cells.n;
      if (this.beforeStep !== null) this.beforeStep(cells, this.arena);
      const shape = this.fast ? this.shapes.find(cells.keys, out.sink !== null) : null;
      if (out.sink !== null && shape !== null && shape.jsonPrefixes !== null) {
        writeStepJson(out.sink, head, shape.jsonPrefixes, cells, this.arena);
      } else {
        const printed = printedCells(cells, this.arena);
        const raw = this.shapes.printed(shape, cells.keys, printed);
        // The fast path makes the stats object when it is read; the general one at once (the
        // reference the fast paths are tested against: fast-paths.test.ts).
        if (raw === null) out.emit({ ...head, stats: this.shapes.make(cells.keys, printed) });
        else out.emit(this.fast ? lazyStep(head, raw) : { ...head, stats: raw.object() });
      }
      if (step.truncated)
        out.warn(
          'record-truncated',
          `the stats table of train step ${head.globalStep} exceeded ${this.maxRecord} bytes and was cut`,
          head.time,
          'main',
        );
      return;
    }
    const where = atEnd ? 'the input ended' : 'another record began';
    out.warn(
      'incomplete-record',
      `the stats of train step ${head.globalStep} are incomplete: ${where} before the table was complete`,
      head.time,
      'main',
    );
  }
}
