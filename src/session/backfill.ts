// Attaching to a long run: its history comes from the log, but not the whole log through SSH.
// A filter on the target keeps only what the panels and alert rules read: every record header
// (steps, memory, batch, resume, errors, warnings…) and, of each stats table, its borders and the
// rows holding a key the cockpit uses; table separators and other rows stay on the target. The
// result is gzipped. Following then continues from the exact byte where the filtered part ended,
// with the same reader (src/trainer-log), so no step is lost or doubled at the seam.
import { gunzipSync } from 'node:zlib';
import type { Transport } from '../remote/transport.js';
import { ALERT_KEYS } from '../metrics/index.js';
import { TrainerLogReader } from '../trainer-log/index.js';
import type { HealthEvent } from '../health/index.js';
import { TIMEPERF_PREFIX } from '../metrics/stat-keys.js';
import { VERSION_STATS_PREFIX } from '../metrics/stat-keys.js';

/** Keys whose history the cockpit draws or evaluates (matched as substrings of a table row, so a
 *  prefix stands for every key it starts: all timeperf/* phases, all version_stats/*). */
export const BACKFILL_KEYS: string[] = [
  'rollout/reward',
  'rollout/easy/reward',
  'rollout/medium/reward',
  'rollout/hard/reward',
  'test_rollout/trajectory/reward',
  'staleness/gap/offpolicy_avg',
  'staleness/gap/offpolicy_max',
  'ppo_actor/behave_cap_ratio',
  'staleness/update/awaiting_train',
  'staleness/rollout/in_progress',
  'ppo_actor/n_tokens',
  TIMEPERF_PREFIX,
  VERSION_STATS_PREFIX,
  ...Object.values(ALERT_KEYS),
];

// $1 size to cover, $2 file, $3 keys joined by '|'. Prints the byte offset where the filtered
// part ends (the last newline at or before $1), then the gzipped filtered lines.
const SCRIPT = [
  'S="$1"; F="$2"',
  'last=$(head -c "$S" "$F" | tail -c 1 | od -An -tx1 | tr -d " \\n")',
  'if [ -z "$last" ] || [ "$last" = "0a" ]; then cut=$S; else p=$(head -c "$S" "$F" | tail -c 4194304 | LC_ALL=C awk \'END{print length($0)}\'); cut=$((S-p)); fi',
  'echo "$cut"',
  'head -c "$cut" "$F" | LC_ALL=C awk -v keys="$3" \'BEGIN{n=split(keys,K,"|")} {c=substr($0,1,3)} c=="\\342\\224\\234"{next} c=="\\342\\224\\202"{for(i=1;i<=n;i++) if(index($0,K[i])){print; next}; next} {print}\' | gzip -1',
].join('\n');

export interface BackfillResult {
  /** Byte offset in the log where following must continue. */
  offset: number;
  /** The reader holding any record still open at `offset`: give it to the follower. */
  reader: TrainerLogReader;
  /** The records, with the checkpoint saves among them in log order (the reader's). */
  events: HealthEvent[];
  /** Bytes that crossed the network (gzipped) vs bytes of log covered. */
  sentBytes: number;
  coveredBytes: number;
}

export async function backfill(transport: Transport, logPath: string, size: number): Promise<BackfillResult> {
  const r = await transport.exec([
    'bash',
    '-c',
    SCRIPT,
    'awrl-backfill',
    String(size),
    logPath,
    BACKFILL_KEYS.join('|'),
  ]);
  if (r.code !== 0)
    throw new Error(
      `backfill filter failed on ${transport.target}: ${r.stderr.toString().trim().split('\n').pop() ?? `exit ${r.code}`}`,
    );
  const nl = r.stdout.indexOf(0x0a);
  const offset = Number(r.stdout.subarray(0, nl).toString('latin1'));
  if (!Number.isFinite(offset) || offset < 0 || offset > size)
    throw new Error(`backfill filter gave a bad offset on ${transport.target}`);
  const gz = r.stdout.subarray(nl + 1);
  const bytes = gz.length ? gunzipSync(gz) : Buffer.alloc(0);
  // The filter keeps every record header, the `Saving … checkpoints` ones too: the reader finds the
  // saves as following does. The filtered bytes are no log pane's lines (table rows are gone):
  // the pane's lines before the seam come from the raw tail (`linesBefore`).
  const reader = new TrainerLogReader();
  const events: HealthEvent[] = reader.pushEventsOnly(bytes);
  return { offset, reader, events, sentBytes: r.stdout.length, coveredBytes: offset };
}

/** The raw log in [from, end) for the trainer-lines pane, reading one byte before `from` to know
 *  whether `from` starts a line. `midLog`: bytes before `from` exist and are not shown. */
export async function readTail(
  transport: Transport,
  logPath: string,
  from: number,
  end: number,
): Promise<{ bytes: Buffer; midLog: boolean; insideLine: boolean }> {
  if (from <= 0)
    return { bytes: await transport.readFile(logPath, { offset: 0, length: end }), midLog: false, insideLine: false };
  const bytes = await transport.readFile(logPath, { offset: from - 1, length: end - from + 1 });
  return { bytes: bytes.subarray(1), midLog: true, insideLine: bytes[0] !== 0x0a };
}
