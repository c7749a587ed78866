// `awrl-tui sentinel-run RUN_ID RUN_DIR` (internal): the sentinel's process on the target, started
// by `sentinel start` / `--launch` (src/sentinel/sentinel-scripts.ts), its input on stdin; it keeps
// the run's digest and watch snapshot (src/session/digest-writer.ts, snapshot-writer.ts).
// `--digest-once`: only the digest (and snapshot), brought to the
// log's end, then a JSON line of what was done (`sentinel start` on an ended run).
import { readFileSync } from 'node:fs';
import { LocalTransport } from '../remote/local.js';
import { parseRunRecord, runLogPath } from '../runs/run-record.js';
import { log, runSentinel, type MakeDigest } from '../sentinel/sentinel-run.js';
import { DigestWriter } from '../session/digest-writer.js';
import { digestPathFor, snapshotPathFor } from '../session/run-digest.js';
import { SnapshotWriter } from '../session/snapshot-writer.js';
import { readRunFacts } from '../runs/run-facts-eval.js';
import { CliError, EXIT } from './errors.js';

const USAGE = 'usage: awrl-tui sentinel-run RUN_ID RUN_DIR [--digest-once] (internal; its input on stdin)';
/** The digest, and the watch snapshot beside it (made with the run's config facts, as an attach's rules judge);
 *  a period's digest rewrite at most every DIGEST_GAP_PERIODS periods (one minute at 15 s). */
const DIGEST_GAP_PERIODS = 4;
const makeDigest: MakeDigest = (t, logPath, facts, onSnapshot, periodMs = 0) =>
  new DigestWriter(
    t,
    logPath,
    digestPathFor(logPath),
    undefined,
    new SnapshotWriter(t, logPath, snapshotPathFor(logPath), facts),
    onSnapshot,
    { minGapMs: DIGEST_GAP_PERIODS * periodMs },
  );

export async function run(args: string[]): Promise<number> {
  const [runId, runDir, ...extra] = args;
  const once = extra.length === 1 && extra[0] === '--digest-once';
  if (!runId || !runDir || (extra.length && !once)) throw new CliError(USAGE, EXIT.usage);
  if (once) return digestOnce(runId, runDir);
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return runSentinel(runId, runDir, Buffer.concat(chunks).toString('utf8'), makeDigest);
}

async function digestOnce(runId: string, runDir: string): Promise<number> {
  const record = parseRunRecord(readFileSync(`${runDir}/run.json`, 'utf8'));
  if (!record || record.runId !== runId) throw new CliError(`no run ${runId} in ${runDir}`, EXIT.usage);
  const transport = new LocalTransport();
  try {
    const logPath = runLogPath(record);
    const facts = readRunFacts(transport, record).catch(() => ({}));
    const u = await makeDigest(transport, logPath, facts, (r) => {
      if ('error' in r) log(`watch snapshot not written: ${r.error}`);
    }).update({ force: true });
    const size = (await transport.stat(logPath))?.size ?? 0;
    process.stdout.write(
      `${JSON.stringify({ digest: digestPathFor(logPath), logBytes: size, ...(u ?? {}), updated: u !== null })}\n`,
    );
    return EXIT.ok;
  } finally {
    await transport.close();
  }
}
