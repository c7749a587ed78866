// One run of the backfill filter script (backfill-filter.ts) over [from, cut) of a log, for the
// sentinel's writers (digest-writer.ts, snapshot-writer.ts): its header line read (where it started:
// `from`, or 0 when the log is not the one `identity` was taken of; the log's identity at `cut`),
// then the gzip of the kept lines as a stream.
import type { ExecStream, Transport } from '../remote/transport.js';
import { FILTER_SCRIPT } from './backfill-filter.js';
import { firstLine } from './backfill.js';

export interface FilterRun {
  /** Where the kept lines start (the `from` asked, or 0: another log). */
  from: number;
  /** `INODE HEAD SEAM` of the log at `cut`. */
  identity: string;
  /** The gzip: what came with the header line, then the stream. */
  rest: Buffer;
  out: AsyncIterator<Buffer>;
  /** The filter's end; throws with its error when it failed. */
  done(): Promise<void>;
  stream: ExecStream;
}

export async function runFilter(
  transport: Transport,
  a: { logPath: string; cut: number; from: number; identity: string; patterns: string; name: string },
): Promise<FilterRun> {
  const stream = transport.execStream(
    ['bash', '-c', FILTER_SCRIPT, a.name, String(a.cut), a.logPath, String(a.from), a.identity, a.patterns],
    { stdin: '' },
  );
  const errors: string[] = [];
  stream.stderr.on('data', (b: Buffer) => errors.push(b.toString('utf8')));
  const out = stream.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head = await firstLine(out);
  const [gotFrom, ino, headCk, seamCk] = head.line.split(' ');
  const said = () => errors.join('').trim().split('\n').pop() || 'no answer';
  if (!/^\d+$/.test(gotFrom ?? '') || !seamCk) {
    stream.close();
    throw new Error(`the filter failed: ${said()}`);
  }
  return {
    from: Number(gotFrom),
    identity: `${ino} ${headCk} ${seamCk}`,
    rest: head.rest,
    out,
    stream,
    done: async () => {
      const r = await stream.done;
      if (r.code !== 0) throw new Error(`the filter failed: exit ${r.code} ${said()}`);
    },
  };
}
