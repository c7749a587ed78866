// `npm run bench -- follow-saves`: what the one reader of a followed log costs over the parser
// alone: TrainerLogReader with the checkpoint saves among its events (`follow`), and with the log
// pane's lines too (the cockpit). The trainer fixture repeated to AWRL_BENCH_MB (default 40) MB, in
// 64 KiB chunks as a follower delivers them. Median of AWRL_BENCH_REPEAT (default 5) interleaved
// runs; figures printed, never asserted.
import { readFileSync } from 'node:fs';
import { TrainerLogParser, TrainerLogReader } from '../../dist/trainer-log/index.js';

const MB = Number(process.env.AWRL_BENCH_MB ?? 40);
const REPEAT = Number(process.env.AWRL_BENCH_REPEAT ?? 5);
const unit = readFileSync(new URL('../../test/fixtures/shared/fixtures/areal-logs/run-a/main.log', import.meta.url));
const copies = Math.max(1, Math.round((MB * 1024 * 1024) / unit.length));
const log = Buffer.concat(Array.from({ length: copies }, () => unit));
const CHUNK = 64 * 1024;

function run(kind) {
  const parser = kind === 'parser' ? new TrainerLogParser() : null;
  const reader = kind === 'parser' ? null : new TrainerLogReader({ lines: kind === 'lines' });
  let events = 0;
  let saves = 0;
  let lines = 0;
  const count = (evs) => {
    for (const e of evs) e.type === 'save' ? saves++ : events++;
  };
  const t0 = process.hrtime.bigint();
  for (let at = 0; at < log.length; at += CHUNK) {
    const chunk = log.subarray(at, at + CHUNK);
    if (parser) count(parser.push(chunk));
    else {
      const r = reader.push(chunk);
      count(r.events);
      lines += r.lines.length;
    }
  }
  if (parser) count(parser.end());
  else {
    const r = reader.end();
    count(r.events);
    lines += r.lines.length;
  }
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, events, saves, lines };
}

const runs = { parser: [], saves: [], lines: [] };
for (let i = 0; i < REPEAT; i++) for (const k of Object.keys(runs)) runs[k].push(run(k));
const median = (xs) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)];
const mbs = (r) => (log.length / 1024 / 1024 / (r.ms / 1000)).toFixed(1);
const [p, s, l] = [median(runs.parser), median(runs.saves), median(runs.lines)];
console.log(
  `log: ${(log.length / 1024 / 1024).toFixed(1)} MB (${copies} x the run-a fixture), ${CHUNK / 1024} KiB chunks, median of ${REPEAT}`,
);
console.log(`parser alone:          ${p.ms.toFixed(0)} ms  ${mbs(p)} MB/s  ${p.events} events`);
console.log(`reader, saves:         ${s.ms.toFixed(0)} ms  ${mbs(s)} MB/s  ${s.events} events, ${s.saves} saves`);
console.log(`reader, saves + lines: ${l.ms.toFixed(0)} ms  ${mbs(l)} MB/s  ${l.lines} lines`);
console.log(
  `all runs (ms):         ${Object.entries(runs)
    .map(([k, rs]) => `${k} ${rs.map((r) => r.ms.toFixed(0)).join(' ')}`)
    .join(' | ')}`,
);
