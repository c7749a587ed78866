// `awrl-tui sentinel-run RUN_ID RUN_DIR` (internal): the sentinel's process on the target, started
// by `sentinel start` / `--launch` (src/sentinel/sentinel-scripts.ts), its input on stdin.
import { runSentinel } from '../sentinel/sentinel-run.js';
import { CliError, EXIT } from './errors.js';

export async function run(args: string[]): Promise<number> {
  const [runId, runDir, ...extra] = args;
  if (!runId || !runDir || extra.length)
    throw new CliError('usage: awrl-tui sentinel-run RUN_ID RUN_DIR (internal; its input on stdin)', EXIT.usage);
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return runSentinel(runId, runDir, Buffer.concat(chunks).toString('utf8'));
}
