// The Ray bring-up as the log tells it (pure): the batch script's `awrl: starting Ray: …` lines
// (ray-bringup.ts) read back, for `follow` and the cockpit: the phase the run is in before the
// trainer's first record, and, when it failed, which node and why.
import { RAY_SAY } from '../runs/ray-bringup.js';
import type { Alert } from '../metrics/index.js';

export interface RayBringUp {
  /** The line without `awrl: `: `starting Ray: 3/4 nodes joined, n3 failed: …`. */
  text: string;
  joined: number | null;
  total: number | null;
  failures: Array<{ node: string; why: string }>;
  /** The attempt gave up (the trainer was not started). */
  failed: boolean;
  /** Every node joined; the trainer starts. */
  done: boolean;
}

export function parseRayBringUpLine(line: string): RayBringUp | null {
  const clean = line.replace(/\r$/, '');
  if (!clean.startsWith(RAY_SAY)) return null;
  const body = clean.slice(RAY_SAY.length);
  const failed = body.startsWith('failed: ');
  const rest = failed ? body.slice('failed: '.length) : body;
  const count = /^(\d+)\/(\d+) nodes joined/.exec(rest);
  const failures: RayBringUp['failures'] = [];
  // `, NODE failed: WHY` items; WHY runs to the next item or to `; not starting the trainer`.
  const items = rest
    .replace(/; not starting the trainer$/, '')
    .split(/, (?=[A-Za-z0-9_.-]+ failed: )/)
    .slice(1);
  for (const it of items) {
    const m = /^([A-Za-z0-9_.-]+) failed: (.*)$/.exec(it);
    if (m) failures.push({ node: m[1], why: m[2] });
  }
  return {
    text: clean.slice('awrl: '.length),
    joined: count ? Number(count[1]) : null,
    total: count ? Number(count[2]) : null,
    failures,
    failed,
    done: /nodes joined; starting the trainer$/.test(rest),
  };
}

/** Fed the log's bytes as they come; returns the bring-up lines completed by each chunk. */
export class RayBringUpLines {
  private rest = '';

  push(chunk: Buffer | string): RayBringUp[] {
    const text = this.rest + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    const lines = text.split('\n');
    this.rest = (lines.pop() ?? '').slice(-4096);
    return lines.map(parseRayBringUpLine).filter((x): x is RayBringUp => x !== null);
  }

  reset(): void {
    this.rest = '';
  }
}

/** The bring-up as an alert while it is the run's phase (info), or when it failed (error); none once
 *  every node joined. */
export function rayAlert(u: RayBringUp | null): Alert | null {
  if (!u || u.done) return null;
  if (u.failed) {
    return {
      id: 'ray/bringup/failed',
      severity: 'error',
      title: u.text.replace(/^starting Ray: failed: /, 'Ray bring-up failed: '),
      detail: u.failures.map((f) => `${f.node}: ${f.why}`).join('; '),
      advice:
        'the attempt ended without starting the trainer: fix the named node (ray start on it by hand shows why), then resume the run',
    };
  }
  return {
    id: 'ray/bringup',
    severity: u.failures.length ? 'warning' : 'info',
    title: u.text,
    detail: '',
    advice: 'the trainer starts once every node joined',
  };
}
