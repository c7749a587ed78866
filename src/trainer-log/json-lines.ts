// The parser with JSON Lines bytes out instead of event objects, for `awrl-tui parse --json`:
// the same lines, byte for byte, as eventToJsonLine of each event TrainerLogParser returns, but a
// step's line is written from the printed value bytes, so no string or object is made per cell.
import { TrainerLogParser, type ParserOptions } from './parser.js';
import { JsonSink } from './json.js';

export class JsonLinesParser {
  private readonly sink = new JsonSink();
  private readonly parser: TrainerLogParser;

  constructor(opts: ParserOptions = {}) {
    this.parser = new TrainerLogParser(opts, this.sink);
  }

  /** The UTF-8 JSON lines (each ending in `\n`) of the events this chunk completes. The view is
   *  valid until the next call: write it out (or copy it) first. */
  push(chunk: Uint8Array): Uint8Array {
    this.parser.push(chunk);
    return this.sink.take();
  }

  /** The lines of the events the end of the input completes (see TrainerLogParser#end). */
  end(): Uint8Array {
    this.parser.end();
    return this.sink.take();
  }

  /** See TrainerLogParser#atRest. */
  atRest(): boolean {
    return this.parser.atRest();
  }

  get writerCount(): number {
    return this.parser.writerCount;
  }

  /** See TrainerLogParser#recordCount. */
  get recordCount(): number {
    return this.parser.recordCount;
  }

  /** See TrainerLogParser#errorCount. */
  get errorCount(): number {
    return this.parser.errorCount;
  }

  reset(): void {
    this.parser.reset();
    this.sink.take();
  }
}
