/** @jsxRuntime classic */
// The launch confirmation at 80x24: every argument of the argv can be read before confirming (long
// elements wrap, a long argv scrolls with j k ↑ ↓ PgUp PgDn), secrets by name only, the key line
// always on screen.
import React from 'react';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { lineText } from '../../src/ui/lines.js';
import { argvRows, argvScrollMax, confirmLaunchLines } from '../../src/ui/screens/config.js';
import { StaticSession } from '../../src/session/static-session.js';
import type { ConfigView, PreflightPhase } from '../../src/session/types.js';
import { maxLineWidth, renderInk, waitForFrame } from './helpers.js';

const LONG =
  '++actor.scheduling_spec[0].env_vars.SGLANG_VLM_CACHE_SIZE_MB_AND_A_VERY_LONG_NAME_THAT_GOES_ON=8192_and_then_some_more_text_at_the_end_END';
const ARGV = [
  'python3',
  'webgym/train.py',
  '--config',
  '/scratch/me/webgym/.awrl/runs/<run-id>/config.yaml',
  ...Array.from({ length: 18 }, (_, i) => `++override_${i}.key=value_${i}`),
  LONG,
  'total_train_epochs=2',
];
const SECRET_VALUE = 'sk-not-shown-anywhere-1234';

function view(): ConfigView {
  return {
    fileName: 'c.yaml',
    overrides: [],
    diagnostics: [],
    hasErrors: false,
    diff: [],
    argv: ARGV,
    target: 'gpu-head',
    draft: null,
    rows: [{ key: 'seed', depth: 0, label: 'seed', value: '1', type: 'int', origin: 'file:1', leaf: true }],
    secrets: [
      { name: 'WANDB_API_KEY', present: true, required: false },
      { name: 'CPU_CLUSTER_TOKEN', present: true, required: true },
    ],
  };
}
const OK: PreflightPhase = {
  phase: 'done',
  target: 'gpu-head',
  checks: [
    { id: 'gpus', result: 'ok', seen: '8 GPUs', todo: '' },
    { id: 'disk', result: 'warning', seen: 'disk 91% full', todo: 'free some space' },
  ],
  errors: 0,
  warnings: 1,
  blocked: false,
  reason: '',
  overrides: [],
};

/** The argv as read back from the visible rows (continuations joined to their element). */
function readArgv(rows: string[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.startsWith('    ↳ ')) out[out.length - 1] += r.slice(6);
    else out.push(r.slice(2));
  }
  return out;
}

describe('argv rows', () => {
  it('a long element wraps onto continuation rows (never cut), no row wider than the width', () => {
    const rows = argvRows(ARGV, 80).map(lineText);
    expect(Math.max(...rows.map((r) => r.length))).toBeLessThanOrEqual(80);
    expect(rows.length).toBeGreaterThan(ARGV.length);
    expect(readArgv(rows)).toEqual(ARGV);
  });
});

describe('launch confirmation at 80x24 (21 body rows)', () => {
  it('scrolling shows every argument; secrets by name only; the key line stays', () => {
    const c = view();
    const max = argvScrollMax(c, 80, OK, 21);
    expect(max).toBeGreaterThan(0);
    const seen = new Map<number, string>();
    for (let scroll = 0; scroll <= max + 3; scroll++) {
      const lines = confirmLaunchLines(c, 80, OK, 21, scroll).map(lineText);
      expect(lines.length).toBeLessThanOrEqual(21);
      expect(maxLineWidth(lines.join('\n'))).toBeLessThanOrEqual(80);
      expect(lines.at(-1)).toMatch(/y launch .*n cancel$/);
      expect(lines.join('\n')).not.toContain(SECRET_VALUE);
      expect(lines.join('\n')).toContain('WANDB_API_KEY');
      const head = lines.findIndex((l) => l.startsWith('argv rows'));
      const m = /^argv rows (\d+)-(\d+) of (\d+)/.exec(lines[head])!;
      expect(lines[head]).toContain('j k ↑ ↓ PgUp PgDn scroll');
      const [from, to] = [Number(m[1]), Number(m[2])];
      lines.slice(head + 1, head + 1 + to - from + 1).forEach((l, i) => seen.set(from + i, l));
    }
    const rows = [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, l]) => l);
    expect(seen.size).toBe(argvRows(ARGV, 80).length);
    expect(readArgv(rows)).toEqual(ARGV);
  });

  it('fits whole at a larger size: no scrolling, the plain head line', () => {
    const lines = confirmLaunchLines(view(), 200, OK, 60).map(lineText);
    expect(lines).toContain('argv (one element per line):');
    expect(argvScrollMax(view(), 200, OK, 60)).toBe(0);
  });

  it('in the cockpit: L, then j/PgDn reach the last argument, the keys do not cancel; y launches, n cancels', async () => {
    const s = new StaticSession({ config: view(), preflight: OK }, { runPreflight: async () => {} });
    const r = renderInk(
      <App session={s} initialScreen="config" size={{ columns: 80, rows: 24 }} colors={false} clock={() => 0} />,
    );
    try {
      await waitForFrame(r, (x) => x.includes('seed'), 'the config screen');
      r.stdin.write('L');
      const first = await waitForFrame(r, (x) => x.includes('argv rows 1-'), 'the confirmation');
      expect(first).toContain('python3');
      expect(first).not.toContain('total_train_epochs=2');
      r.stdin.write('\u001B[6~'); // PgDn
      for (let i = 0; i < 30; i++) r.stdin.write('j');
      const end = await waitForFrame(r, (x) => x.includes('total_train_epochs=2'), 'the last argument');
      expect(end).toContain('_at_the_end_END');
      expect(end).toMatch(/y launch .*n cancel/);
      expect(maxLineWidth(end)).toBeLessThanOrEqual(80);
      r.stdin.write('y');
      await waitForFrame(r, () => s.calls.some((c) => c.action === 'launch'), 'the launch');
      r.stdin.write('L');
      await waitForFrame(r, (x) => x.includes('argv rows 1-'), 'the confirmation again, from its top');
      r.stdin.write('n');
      await waitForFrame(r, (x) => !x.includes('argv rows'), 'the confirmation closed');
      expect(s.calls.filter((c) => c.action === 'launch')).toHaveLength(1);
    } finally {
      r.unmount();
    }
  });
});

describe('auto-resume in the launch confirmation (Slurm targets only)', () => {
  const open = async (backend: 'slurm' | 'direct') => {
    const s = new StaticSession(
      { config: { ...view(), targetBackend: backend }, preflight: OK },
      { runPreflight: async () => {} },
    );
    const r = renderInk(
      <App session={s} initialScreen="config" size={{ columns: 80, rows: 24 }} colors={false} clock={() => 0} />,
    );
    await waitForFrame(r, (x) => x.includes('seed'), 'the config screen');
    r.stdin.write('L');
    await waitForFrame(r, (x) => x.includes('argv rows 1-'), 'the confirmation');
    return { s, r };
  };

  it('Slurm: off at first; a steps it to 2; y launches with autoResume 2; the key line stays', async () => {
    const { s, r } = await open('slurm');
    try {
      const first = await waitForFrame(r, (x) => x.includes('auto-resume: off'), 'auto-resume off');
      expect(first).toMatch(/auto-resume: off {3}a changes after TIMEOUT, PREEMPTED or NODE_FAIL/);
      expect(first).toMatch(/y launch .*n cancel/);
      r.stdin.write('a');
      await waitForFrame(r, (x) => x.includes('auto-resume: up to 1 resubmission '), 'one');
      r.stdin.write('a');
      const two = await waitForFrame(r, (x) => x.includes('auto-resume: up to 2 resubmissions'), 'two');
      expect(maxLineWidth(two)).toBeLessThanOrEqual(80);
      expect(two).toMatch(/y launch .*n cancel/);
      r.stdin.write('y');
      await waitForFrame(r, () => s.calls.some((c) => c.action === 'launch'), 'the launch');
      expect(s.calls.filter((c) => c.action === 'launch').map((c) => c.args)).toEqual([[{ autoResume: 2 }]]);
    } finally {
      r.unmount();
    }
  });

  it('a direct target: no auto-resume line; a says why and launches nothing; y launches without it', async () => {
    const { s, r } = await open('direct');
    try {
      r.stdin.write('a');
      const said = await waitForFrame(r, (x) => x.includes('a: auto-resume resubmits Slurm jobs'), 'the reason');
      expect(said).toContain('argv rows 1-'); // still open
      expect(said).not.toContain('auto-resume: off');
      r.stdin.write('y');
      await waitForFrame(r, () => s.calls.some((c) => c.action === 'launch'), 'the launch');
      expect(s.calls.filter((c) => c.action === 'launch').map((c) => c.args)).toEqual([[undefined]]);
    } finally {
      r.unmount();
    }
  });

  it('at 80x24 the auto-resume line and the key line both stay while the argv scrolls', () => {
    const c = { ...view(), targetBackend: 'slurm' as const };
    const max = argvScrollMax(c, 80, OK, 21);
    for (const scroll of [0, max]) {
      const lines = confirmLaunchLines(c, 80, OK, 21, scroll, 3).map(lineText);
      expect(lines.length).toBeLessThanOrEqual(21);
      expect(lines.at(-2)).toMatch(/^auto-resume: up to 3 resubmissions {3}a changes/);
      expect(lines.at(-1)).toMatch(/y launch .*n cancel$/);
    }
  });
});
