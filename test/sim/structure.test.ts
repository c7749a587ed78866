// The simulator's files have the structure of the real trainer's (fixture run-a, written by AReaL's own
// logging and tabulate): the same record header layout and colours, the same table geometry, the same
// key naming, the same per-step record sequence, the same merged.log / stdout prefix rules. Structure,
// not values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { simWorkspace, CONFIG_RAY, type SimWorkspace } from './helpers.js';
import { FIXTURE_KEY_COUNT } from '../../src/sim/keys.js';

const FIX = new URL('../fixtures/shared/fixtures/areal-logs/run-a/', import.meta.url);
const fixture = (name: string): string => readFileSync(new URL(name, FIX), 'utf8');

const HEADER =
  /^\x1b\[1;38;2;180;140;80m\(AReaL\)\x1b\[0m (\x1b\[[0-9;]+m)\d{8}-\d\d:\d\d:\d\d\.\d{3} (.+?) (DEBUG|INFO|WARNING|ERROR|CRITICAL): (.*)$/;
const CELL_VALUE = /^ +(-?\d\.\d{4}e[+-]\d{2,3}|nan|-?inf) *$/;

type Line =
  | { kind: 'header'; colour: string; logger: string; level: string; message: string }
  | { kind: 'table' | 'other'; text: string };

function classify(text: string): Line[] {
  return text
    .split('\n')
    .slice(0, -1)
    .map((l) => {
      const m = HEADER.exec(l);
      if (m) return { kind: 'header', colour: m[1], logger: m[2], level: m[3], message: m[4] };
      return { kind: /^[╒│├╘]/.test(l) ? 'table' : 'other', text: l };
    });
}

function tables(text: string): string[][] {
  const out: string[][] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith('╒')) continue;
    let j = i;
    while (!lines[j].startsWith('╘')) j++;
    out.push(lines.slice(i, j + 1));
    i = j;
  }
  return out;
}

function checkTableGeometry(t: string[]): { keys: string[] } {
  const last = t[t.length - 1];
  expect(last.endsWith('╛\x1b[0m')).toBe(true); // the record's reset closes the table
  const body = [...t.slice(0, -1), last.replace(/\x1b\[0m$/, '')];
  const width = [...body[0]].length;
  for (const l of body) expect([...l].length).toBe(width);
  const joints = (l: string, ch: string): number[] => [...l].flatMap((c, i) => (c === ch ? [i] : []));
  const cols = joints(body[0], '╤');
  expect(cols).toHaveLength(7); // 4 key/value pairs per row
  expect(joints(body[body.length - 1], '╧')).toEqual(cols);
  const rows: string[][] = [];
  body.slice(1, -1).forEach((l, i) => {
    if (i % 2 === 1) {
      expect(l.startsWith('├') && l.endsWith('┤')).toBe(true);
      expect(joints(l, '┼')).toEqual(cols);
    } else {
      expect(joints(l, '│').slice(1, -1)).toEqual(cols);
      rows.push(l.split('│').slice(1, -1));
    }
  });
  for (const r of rows) {
    r.forEach((cell, c) => {
      if (c % 2 === 0)
        expect(cell).toMatch(/^ [a-z0-9_/]* *$/); // keys: left-aligned
      else if (cell.trim() !== '') expect(cell).toMatch(CELL_VALUE); // values: right-aligned .4e
    });
  }
  // Column-major fill: column by column, top to bottom.
  const keys: string[] = [];
  for (let c = 0; c < 8; c += 2) for (const r of rows) if (r[c].trim()) keys.push(r[c].trim());
  return { keys };
}

let ws: SimWorkspace;
beforeAll(async () => {
  ws = simWorkspace(CONFIG_RAY, ['total_train_epochs=1', 'recover.freq_steps=2'], { AWRL_SIM_DATASET_SIZE: '1024' });
  expect(await ws.run()).toBe(0);
});
afterAll(() => ws.cleanup());

describe('structure against the real fixture run-a', () => {
  it('every line is a header, a table line or (only in tracebacks) other text, as in the fixture', () => {
    const sim = classify(ws.read('main.log').toString('utf8'));
    expect(sim.filter((l) => l.kind === 'other')).toEqual([]);
    const fix = classify(fixture('main.log'));
    expect(
      fix
        .filter((l) => l.kind === 'other')
        .every((l) => l.kind === 'other' && /^(Traceback|  File|\w+Error)/.test(l.text)),
    ).toBe(true);
  });

  it('loggers shared with the fixture use the same colour and level', () => {
    const colours = (ls: Line[]): Map<string, string> =>
      new Map(
        ls.flatMap((l) => (l.kind === 'header' ? [[`${l.logger} ${l.level}`, l.colour] as [string, string]] : [])),
      );
    const fix = colours(classify(fixture('main.log')));
    const sim = colours(classify(ws.read('main.log').toString('utf8')));
    let shared = 0;
    for (const [k, c] of sim)
      if (fix.has(k)) {
        expect(c, k).toBe(fix.get(k));
        shared++;
      }
    expect(shared).toBeGreaterThanOrEqual(8);
  });

  it('tables follow the same geometry; keys are the fixture vocabulary plus §6 extras, 150–250 of them', () => {
    const fixKeys = checkTableGeometry(tables(fixture('main.log'))[0]).keys;
    expect(fixKeys).toHaveLength(FIXTURE_KEY_COUNT);
    const simTables = tables(ws.read('main.log').toString('utf8'));
    expect(simTables.length).toBe(8);
    for (const t of simTables) {
      const { keys } = checkTableGeometry(t);
      expect(keys.length).toBeGreaterThanOrEqual(150);
      expect(keys.length).toBeLessThanOrEqual(250);
      for (const k of fixKeys) expect(keys).toContain(k);
      for (const k of [
        'rollout/easy/reward',
        'rollout/medium/reward',
        'rollout/hard/reward',
        'timeperf/save',
        'staleness/gap/offpolicy_max',
      ])
        expect(keys).toContain(k);
    }
  });

  it('each step writes the fixture record sequence', () => {
    const seq = (text: string): string[] =>
      classify(text).flatMap((l) => {
        if (l.kind !== 'header') return [];
        if (l.message.startsWith('prepare_batch/rollout:')) return ['batch'];
        if (l.message.startsWith('Memory-Usage ')) return [`mem:${l.message.slice(13, l.message.indexOf(':'))}`];
        if (l.message.startsWith('[step_level_adv]')) return ['adv'];
        if (l.message.startsWith('Saving ')) return ['save'];
        if (/^Epoch \d+\/\d+ Step/.test(l.message)) return ['done'];
        if (l.message.startsWith('Stats (')) return ['stats'];
        if (l.message === '') return ['table'];
        return [];
      });
    const norm = (s: string[]): string => s.join(' ').replace(/ save/g, '');
    const fixSteps = norm(seq(fixture('main.log')))
      .split(' table')
      .filter(Boolean);
    const simSteps = norm(seq(ws.read('main.log').toString('utf8')))
      .split(' table')
      .filter(Boolean);
    expect(new Set(simSteps.map((s) => s.trim()))).toEqual(new Set(fixSteps.map((s) => s.trim())));
    expect(seq(ws.read('main.log').toString('utf8'))).toContain('save');
  });

  it('merged.log prefixes [main] on the first line of controller records only; stdout adds the leading colour', () => {
    const main = ws.read('main.log').toString('utf8').split('\n');
    const merged = ws.read('merged.log').toString('utf8').split('\n');
    expect(merged.length).toBe(main.length);
    merged.forEach((l, i) => {
      if (main[i].startsWith('\x1b[1;38;2')) expect(l).toBe('[main]    ' + main[i]);
      else expect(l).toBe(main[i]); // table lines: unprefixed, as in the fixture
    });
    const fixMerged = fixture('merged.log').split('\n');
    expect(fixMerged.filter((l) => /^[╒│├╘]/.test(l)).length).toBeGreaterThan(0); // the rule we copy
    const stdout = ws.stdout.split('\n').filter(Boolean);
    for (const l of stdout) {
      expect(l).toMatch(
        /^(\x1b\[[0-9;]+m\x1b\[1;38;2;180;140;80m\(AReaL\)|[╒│├╘]|\(RayRPCServer pid=\d+, ip=[\d.]+\) )/,
      );
    }
    expect(stdout.some((l) => l.startsWith('(RayRPCServer pid='))).toBe(true);
  });
});
