// `awrl-tui parse --json` output is pinned byte for byte: the golden files were made by the
// parser's general path (fastPaths: false; first by the implementation before its fast paths
// existed, last regenerated for issue #15's contract: memory source, batch role, held end record,
// warnings with their record), through eventToJsonLine, from the
// run-a fixtures and from golden/edge.log (odd values, unicode and duplicate keys, escape codes in
// table rows, CRLF, multi-table steps, worker lines, garbage, a cut line, a truncated table; made
// by golden/make-edge-log.mjs). The library's events, the JSON Lines parser fed random chunks and
// the built CLI must all give exactly those bytes. Values are written as printed when the printed
// text is a JSON number (`1.0294e+00`), for every step, the first of its key set too; nan, inf
// and -inf as the JSON strings "nan", "inf", "-inf" (issue #15: the files were rewritten then, and
// a check confirmed that those values, null before, were all that changed). Issue #27: stdout and
// edge regenerated: a complete error or warning record is finished once records 2 s newer come,
// so those events moved up towards their place in the file; the same lines, only their order.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  JsonLinesParser,
  JsonSink,
  eventToJsonLine,
  parseLogBytes,
  writeEventJson,
} from '../../src/trainer-log/index.js';
import { SHARED } from '../harness/fixtures.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;
const GOLDEN = new URL('./golden/', import.meta.url).pathname;
const RUN_A = `${SHARED}fixtures/areal-logs/run-a/`;
const CASES: [string, string][] = [
  ['main.log', RUN_A + 'main.log'],
  ['merged.log', RUN_A + 'merged.log'],
  ['stdout.log', RUN_A + 'stdout.log'],
  ['edge.log', GOLDEN + 'edge.log'],
];
const golden = (name: string) => readFileSync(GOLDEN + name.replace(/\.log$/, '.jsonl'));

let seed = 99;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;

function jsonLinesOf(input: Uint8Array, cuts: number[]): Buffer {
  const p = new JsonLinesParser();
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, input.length]) {
    // A copy: the returned view is only valid until the next call.
    out.push(Buffer.from(p.push(input.subarray(at, c))));
    at = c;
  }
  out.push(Buffer.from(p.end()));
  return Buffer.concat(out);
}

describe('JSON Lines output is byte-identical to the golden files', () => {
  it.each(CASES)('library events through eventToJsonLine (%s)', (_name, file) => {
    const lines = parseLogBytes(readFileSync(file)).map((e) => eventToJsonLine(e) + '\n');
    expect(Buffer.from(lines.join(''), 'utf8').equals(golden(_name))).toBe(true);
  });

  it.each(CASES)('library events through writeEventJson, as `follow --json` writes them (%s)', (_name, file) => {
    const sink = new JsonSink();
    for (const e of parseLogBytes(readFileSync(file))) writeEventJson(sink, e);
    expect(Buffer.from(sink.take()).equals(golden(_name))).toBe(true);
  });

  it.each(CASES)('JsonLinesParser, whole and in 20 random chunkings (%s)', (name, file) => {
    const input = readFileSync(file);
    const want = golden(name);
    expect(jsonLinesOf(input, []).toString('utf8')).toBe(want.toString('utf8'));
    for (let r = 0; r < 20; r++) {
      const cuts = Array.from({ length: 1 + Math.floor(rand() * 40) }, () => Math.floor(rand() * input.length)).sort(
        (a, b) => a - b,
      );
      expect(jsonLinesOf(input, cuts).equals(want)).toBe(true);
    }
  });

  it.each(CASES)('the built CLI, parse --json (%s)', (name, file) => {
    const r = spawnSync(process.execPath, [BIN, 'parse', '--json', file], { maxBuffer: 1 << 28 });
    expect(r.status).toBe(0);
    expect(r.stdout.toString('utf8')).toBe(golden(name).toString('utf8'));
  });

  it('a parser that has read other logs (then reset, as a follower after a rotation) writes the same bytes as a fresh one', () => {
    for (const [name, file] of CASES) {
      const p = new JsonLinesParser();
      for (const [, other] of CASES) p.push(readFileSync(other));
      p.end();
      p.reset();
      const out = Buffer.concat([Buffer.from(p.push(readFileSync(file))), Buffer.from(p.end())]);
      expect(out.toString('utf8'), name).toBe(golden(name).toString('utf8'));
    }
  });

  it('the built CLI, all fixtures as one stream', () => {
    const r = spawnSync(process.execPath, [BIN, 'parse', '--json', ...CASES.map((c) => c[1])], { maxBuffer: 1 << 28 });
    const whole = parseLogBytes(Buffer.concat(CASES.map((c) => readFileSync(c[1]))))
      .map((e) => eventToJsonLine(e) + '\n')
      .join('');
    expect(r.status).toBe(0);
    expect(r.stdout.toString('utf8')).toBe(whole);
  });
});
