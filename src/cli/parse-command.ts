// `awrl-tui parse FILE… [--json]`: the files, in the order given, as ONE stream through the one
// trainer-log parser. `--json`: JSON Lines, one event per line. Otherwise a short summary.
import { once } from 'node:events';
import { CliError, EXIT } from './errors.js';
import { openAll, readChunksSync } from './file-chunks.js';
import { writeStdoutSync } from './stdio.js';
// Straight from their files, not through the room's index: `parse` starts without the modules it never uses.
import { JsonLinesParser } from '../trainer-log/json-lines.js';
import { TrainerLogParser } from '../trainer-log/parser.js';
import type { TrainerEvent } from '../trainer-log/events.js';
// The metrics store is loaded only for the summary: `--json` does not pay for it.
type Metrics = typeof import('../metrics/index.js');

const USAGE = 'usage: awrl-tui parse FILE... [--json]';
const READ_SIZE = 1 << 18;
/** --json: one read and at most one write per MiB; the parser copies only what it keeps. */
const JSON_READ_SIZE = 1 << 20;

/** Which of the files hold no trainer record at all (a log of another program, random bytes,
 *  AReaL <= 0.5.1 without its header): told file by file as the stream moves on. A file with no
 *  record but errors (a trainer that died before its first record: only its traceback) is read:
 *  its errors are shown, and a note says what it lacks. */
class RecordCheck {
  private file = -1;
  private bytes = 0;
  private recordsBefore = 0;
  private errorsBefore = 0;
  readonly empty: string[] = [];
  readonly errorsOnly: string[] = [];

  constructor(
    private readonly files: string[],
    private readonly records: () => number,
    private readonly errors: () => number,
  ) {}

  /** File i starts (readChunksSync's onFile). */
  next(i: number): void {
    this.settle();
    this.file = i;
    this.bytes = 0;
    this.recordsBefore = this.records();
    this.errorsBefore = this.errors();
  }

  chunk(n: number): void {
    this.bytes += n;
  }

  /** After the parser's end(): the last file is settled too. */
  settle(): void {
    if (this.file >= 0 && this.bytes > 0 && this.records() === this.recordsBefore)
      (this.errors() > this.errorsBefore ? this.errorsOnly : this.empty).push(this.files[this.file]);
    this.file = -1;
  }

  /** The note on files that held errors but no record (stderr; the exit status stays 0). */
  note(): void {
    for (const f of this.errorsOnly)
      process.stderr.write(
        `${f}: no trainer log record found, only errors (shown): the trainer may have died before its first record.\n`,
      );
  }

  /** Exit 2 when a non-empty file held no record: the one line that says so. */
  verdict(): void {
    if (this.empty.length === 0) return;
    const which = this.empty.length === 1 ? this.empty[0] : this.empty.join(', ');
    throw new CliError(
      `${which}: no trainer log record found. A record starts a line like ` +
        `"(AReaL) 20260525-12:19:55.952 StatsLogger INFO: …" (before AReaL 0.5.2 without "(AReaL) "); ` +
        "give main.log, merged.log or the trainer's captured stdout.",
      EXIT.usage,
    );
  }
}

/** How many chunks the summary reads between turns of the event loop. */
const CHUNKS_A_TURN = 4;

async function feed(fds: number[], files: string[], onEvents: (evs: TrainerEvent[]) => void): Promise<RecordCheck> {
  const parser = new TrainerLogParser();
  const check = new RecordCheck(
    files,
    () => parser.recordCount,
    () => parser.errorCount,
  );
  let chunks = 0;
  for (const chunk of readChunksSync(fds, files, READ_SIZE, (i) => check.next(i))) {
    // The summary keeps what it reads (the metrics store): V8 finishes its incremental marking
    // in tasks of the event loop, and without turns of it the heap grew 15 % more (1 GB: 108 MB
    // against 94). `--json` keeps nothing: its heap stays flat without them.
    if (++chunks % CHUNKS_A_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    check.chunk(chunk.length);
    const evs = parser.push(chunk);
    if (evs.length) onEvents(evs);
  }
  const rest = parser.end();
  check.settle();
  onEvents(rest);
  return check;
}

async function writeOut(s: string | Buffer): Promise<void> {
  if (!process.stdout.write(s)) await once(process.stdout, 'drain');
}

/** `--json`: bytes in, bytes out. JsonLinesParser hands back the JSON lines of each chunk as one
 *  buffer, written with one write(2): no stream, no per-line strings. Read and written in turn on
 *  this thread (readChunksSync): the least CPU time. */
function jsonLines(fds: number[], files: string[]): RecordCheck {
  const parser = new JsonLinesParser();
  const check = new RecordCheck(
    files,
    () => parser.recordCount,
    () => parser.errorCount,
  );
  for (const chunk of readChunksSync(fds, files, JSON_READ_SIZE, (i) => check.next(i))) {
    check.chunk(chunk.length);
    writeStdoutSync(parser.push(chunk));
  }
  const rest = parser.end();
  check.settle();
  writeStdoutSync(rest);
  check.note();
  return check;
}

export async function run(args: string[]): Promise<number> {
  const json = args.includes('--json');
  const bad = args.find((a) => a.startsWith('-') && a !== '--json');
  if (bad) throw new CliError(`unknown option ${bad}. ${USAGE}`, EXIT.usage);
  const files = args.filter((a) => a !== '--json');
  if (files.length === 0) throw new CliError(`no log file given. ${USAGE}`, EXIT.usage);
  const fds = openAll(files);
  if (json) {
    // process.stdout is never touched here: fd 1 keeps the blocking mode it was given.
    jsonLines(fds, files).verdict();
    return EXIT.ok;
  }
  // `parse … | head` closes the pipe early: stop quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT.ok);
  });

  const summary = new Summary(await import('../metrics/index.js'));
  const check = await feed(fds, files, (evs) => {
    for (const e of evs) summary.add(e);
  });
  // Not a trainer log at all: the one line that says so, not an empty summary.
  if (check.empty.length === files.length) check.verdict();
  await writeOut(summary.render(files));
  check.note();
  check.verdict();
  return EXIT.ok;
}

class Summary {
  readonly store: InstanceType<Metrics['MetricsStore']>;
  private readonly stepTimeKey: string;

  constructor(metrics: Metrics) {
    this.store = new metrics.MetricsStore();
    this.stepTimeKey = metrics.STEP_TIME_KEY;
  }

  steps = 0;
  starts = 0;
  stepTimeSum = 0;
  stepTimeN = 0;
  errors: Extract<TrainerEvent, { type: 'error' }>[] = [];
  errorCount = 0;
  warnings = new Map<string, number>();

  add(e: TrainerEvent): void {
    const before = this.store.recent(this.stepTimeKey, 1).steps[0];
    this.store.ingest(e);
    if (e.type === 'step') {
      this.steps++;
      const st = this.store.recent(this.stepTimeKey, 1);
      if (st.steps[0] === e.globalStep && st.steps[0] !== before && st.values[0] !== null) {
        this.stepTimeSum += st.values[0];
        this.stepTimeN++;
      }
    } else if (e.type === 'start') {
      this.starts++;
    } else if (e.type === 'error') {
      this.errorCount++;
      if (this.errors.length < 10) this.errors.push(e);
    } else if (e.type === 'warning') {
      this.warnings.set(e.kind, (this.warnings.get(e.kind) ?? 0) + 1);
    }
  }

  render(files: string[]): string {
    const s = this.store;
    const last = s.lastStepEvent;
    const lines: string[] = [];
    lines.push(`files: ${files.join(', ')}`);
    lines.push(
      last
        ? `steps: ${this.steps} step records, last train step ${last.globalStep}/${last.totalSteps} (epoch ${last.epoch}/${last.epochs}, step ${last.step}/${last.stepsPerEpoch}) at ${last.time}`
        : 'steps: none',
    );
    lines.push(`resumes: ${s.resumes}${this.starts ? `, fresh starts: ${this.starts}` : ''}`);
    // The mean of the finite rewards (a nan step is left out; the last one is said as it is).
    const rewards = s.recent('rollout/reward', 10).values.filter((v): v is number => v !== null && Number.isFinite(v));
    const lastReward = s.latest('rollout/reward');
    lines.push(
      s.has('rollout/reward')
        ? `reward: last ${fmt(lastReward)}, mean of last ${rewards.length} steps ${rewards.length ? fmt(rewards.reduce((a, b) => a + b, 0) / rewards.length) : 'n/a'}`
        : 'reward: not logged',
    );
    lines.push(
      this.stepTimeN
        ? `step time: mean ${duration(this.stepTimeSum / this.stepTimeN)} over ${this.stepTimeN} steps`
        : 'step time: n/a',
    );
    lines.push(`errors: ${this.errorCount}`);
    for (const e of this.errors)
      lines.push(`  ${e.time ?? '(no time)'} ${e.kind} [${e.source ?? 'main'}] ${oneLine(e.message)}`);
    if (this.errorCount > this.errors.length) lines.push(`  … and ${this.errorCount - this.errors.length} more`);
    const w = [...this.warnings].map(([k, n]) => `${k} ${n}`).join(', ');
    lines.push(`warnings: ${s.warnings}${w ? ` (${w})` : ''}`);
    lines.push(`finished: ${s.finished ? 'yes' : 'no'}`);
    return lines.join('\n') + '\n';
  }
}

/** An error's message as one short line of the summary: a record can hold a megabyte on one
 *  line (the whole message stays in `--json`). */
const MESSAGE_CHARS = 120;
function oneLine(message: string): string {
  const first = message.split('\n', 1)[0];
  return first.length > MESSAGE_CHARS || first.length < message.length ? `${first.slice(0, MESSAGE_CHARS)}…` : first;
}

/** A stats value: nan, inf and -inf as the trainer prints them; n/a when its cell held no number. */
function fmt(v: number | null): string {
  if (v === null) return 'n/a';
  return Number.isFinite(v) ? String(Number(v.toPrecision(5))) : Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
}

function duration(sec: number): string {
  if (sec < 120) return `${sec.toFixed(1)} s`;
  const m = Math.floor(sec / 60);
  const s = Math.round(sec - m * 60);
  return m < 120 ? `${m} min ${s} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
