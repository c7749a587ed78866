// `npm run bench -- follow-saves`: what feeding the checkpoint saves to the alerts costs `follow`
// (followRun's onSave: src/runs CheckpointSaves scans the bytes for `Saving` next to the parser).
// The trainer fixture repeated to AWRL_BENCH_MB (default 40) MB, in 64 KiB chunks as a follower
// delivers them: the parser alone, the parser with the saves merged in log order, and the byte scan
// alone (the added work; the two parses differ by less than the host's noise). Median of
// AWRL_BENCH_REPEAT (default 5) interleaved runs; figures printed, never asserted.
import { readFileSync } from 'node:fs';
import { TrainerLogParser } from '../../dist/trainer-log/index.js';
import { CheckpointSaves } from '../../dist/runs/checkpoint-saves.js';
import { CheckpointSaveScanner } from '../../dist/health/index.js';

const MB = Number(process.env.AWRL_BENCH_MB ?? 40);
const REPEAT = Number(process.env.AWRL_BENCH_REPEAT ?? 5);
const unit = readFileSync(new URL('../../test/fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url));
const copies = Math.max(1, Math.round((MB * 1024 * 1024) / unit.length));
const log = Buffer.concat(Array.from({ length: copies }, () => unit));
const CHUNK = 64 * 1024;

function run(withSaves) {
  const parser = new TrainerLogParser();
  let events = 0;
  let saves = 0;
  const merge = withSaves ? new CheckpointSaves((e) => (e.type === 'save' ? saves++ : events++)) : null;
  const t0 = process.hrtime.bigint();
  for (let at = 0; at < log.length; at += CHUNK) {
    const chunk = log.subarray(at, at + CHUNK);
    merge?.push(chunk);
    const got = parser.push(chunk);
    if (merge) {
      for (const e of got) merge.event(e, true);
      merge.flush(true);
    } else events += got.length;
  }
  const rest = parser.end();
  if (merge) {
    for (const e of rest) merge.event(e, true);
    merge.end(true);
  } else events += rest.length;
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, events, saves };
}

/** The added work alone (the byte scan), measured apart: the two parses above differ by less than
 *  the shared machine's noise. */
function scanOnly() {
  const scanner = new CheckpointSaveScanner();
  let saves = 0;
  const t0 = process.hrtime.bigint();
  for (let at = 0; at < log.length; at += CHUNK) saves += scanner.push(log.subarray(at, at + CHUNK)).length;
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, events: 0, saves };
}

const plain = [];
const merged = [];
const scans = [];
for (let i = 0; i < REPEAT; i++) {
  plain.push(run(false));
  merged.push(run(true));
  scans.push(scanOnly());
}
const median = (xs) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)];
const p = median(plain);
const m = median(merged);
const mbs = (r) => ((log.length / 1024 / 1024) / (r.ms / 1000)).toFixed(1);
console.log(`log: ${(log.length / 1024 / 1024).toFixed(1)} MB (${copies} x the run-a fixture), ${CHUNK / 1024} KiB chunks, median of ${REPEAT}`);
console.log(`parser alone:        ${p.ms.toFixed(0)} ms  ${mbs(p)} MB/s  ${p.events} events`);
console.log(`parser + saves:      ${m.ms.toFixed(0)} ms  ${mbs(m)} MB/s  ${m.events} events, ${m.saves} saves`);
const sc = median(scans);
console.log(`byte scan alone:     ${sc.ms.toFixed(1)} ms  ${mbs(sc)} MB/s  ${sc.saves} saves (${((sc.ms / p.ms) * 100).toFixed(1)}% of the parse)`);
console.log(`all runs (ms):       parser ${plain.map((r) => r.ms.toFixed(0)).join(' ')} | + saves ${merged.map((r) => r.ms.toFixed(0)).join(' ')} | scan ${scans.map((r) => r.ms.toFixed(1)).join(' ')}`);
