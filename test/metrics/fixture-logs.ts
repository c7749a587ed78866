// Every trainer log the rules' tests replay: the real-format fixtures, the parser's golden logs and
// the logs of the trainers' real exit paths (finished, and each failure), parsed.
import { readFileSync, readdirSync } from 'node:fs';
import { parseLogBytes, type TrainerEvent } from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';
import { FAILURES, TRAINERS, exitLogs } from '../trainer-log/exit-paths.js';

const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;
const GOLDEN = new URL('../trainer-log/golden/', import.meta.url).pathname;

export function fixtureLogs(): [string, TrainerEvent[]][] {
  const out: [string, TrainerEvent[]][] = [];
  for (const f of readdirSync(RUN_A).filter((f) => f.endsWith('.log')))
    out.push([`run-a/${f}`, parseLogBytes(readFileSync(RUN_A + f))]);
  for (const f of readdirSync(GOLDEN).filter((f) => f.endsWith('.log')))
    out.push([`golden/${f}`, parseLogBytes(readFileSync(GOLDEN + f))]);
  for (const trainer of TRAINERS)
    for (const failure of [...FAILURES, null])
      for (const [name, text] of Object.entries(exitLogs(trainer, failure)))
        out.push([`${trainer}/${failure ?? 'finished'}/${name}`, parseLogBytes(Buffer.from(text))]);
  return out;
}
