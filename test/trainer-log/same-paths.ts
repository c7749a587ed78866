// The check behind the fast-path tests: the parser with its fast paths and without them
// (fastPaths: false, the general path) gives the same events, and JsonLinesParser the same
// JSON bytes, for the whole input and for random cuts of it into chunks.
import { expect } from 'vitest';
import { JsonLinesParser, TrainerLogParser, eventToJsonLine, type TrainerEvent } from '../../src/trainer-log/index.js';

function parse(buf: Uint8Array, fastPaths: boolean, cuts: number[] = []): TrainerEvent[] {
  const p = new TrainerLogParser({ fastPaths });
  const out: TrainerEvent[] = [];
  let at = 0;
  for (const c of [...cuts, buf.length]) {
    out.push(...p.push(buf.subarray(at, c)));
    at = c;
  }
  out.push(...p.end());
  return out;
}

function jsonLines(buf: Uint8Array, cuts: number[] = []): string {
  const p = new JsonLinesParser();
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, buf.length]) {
    out.push(Buffer.from(p.push(buf.subarray(at, c))));
    at = c;
  }
  out.push(Buffer.from(p.end()));
  return Buffer.concat(out).toString('utf8');
}

/** Both paths agree on `buf`, whole and in random chunks (cut where `rand` says), as events and
 *  as JSON Lines bytes. Returns the events. */
export function expectSamePaths(buf: Uint8Array, name: string, rand: () => number): TrainerEvent[] {
  const randomCuts = (len: number): number[] =>
    Array.from({ length: 1 + Math.floor(rand() * 30) }, () => Math.floor(rand() * len)).sort((a, b) => a - b);
  const general = parse(buf, false);
  const generalJson = general.map((e) => eventToJsonLine(e) + '\n').join('');
  expect(parse(buf, true), name).toEqual(general);
  expect(
    parse(buf, true)
      .map((e) => eventToJsonLine(e) + '\n')
      .join(''),
    name,
  ).toBe(generalJson);
  expect(jsonLines(buf), name).toBe(generalJson);
  for (let r = 0; r < 4; r++) {
    const cuts = randomCuts(buf.length);
    expect(parse(buf, true, cuts), name).toEqual(general);
    expect(parse(buf, false, cuts), name).toEqual(general);
    expect(jsonLines(buf, cuts), name).toBe(generalJson);
  }
  return general;
}
