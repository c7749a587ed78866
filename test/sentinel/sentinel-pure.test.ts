// The pure pieces of the sentinel: its state from sentinel.json + whether its process lives, the
// ustar archive its runtime travels in (read back by the system's tar), and its digest keeper's
// order of updates (the last one alone).
import { describe, it, expect, vi } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sentinelText, sentinelView } from '../../src/runs/sentinel-status.js';
import { tarChunks } from '../../src/sentinel/tar.js';
import { DigestKeeper, type SentinelDigest } from '../../src/sentinel/sentinel-run.js';
import { DiskReport } from '../../src/sentinel/heartbeat.js';
import { sentinelBeat } from './sentinel-beat.js';

const beat = sentinelBeat;
const at = (s: number) => new Date(Date.parse('2026-12-05T10:00:10.000Z') + s * 1000).toISOString();

describe('sentinelView', () => {
  it.each([
    ['alive, beat 12 s old', beat(), true, at(12), true, 'running'],
    ['alive, beat exactly two periods old', beat(), true, at(30), true, 'running'],
    ['alive, beat older than two periods, run active', beat(), true, at(31), true, 'silent'],
    ['gone without a stop, run active (a fresh beat)', beat(), false, at(1), true, 'silent'],
    ['gone without a stop after the run ended', beat(), false, at(100), false, 'stopped'],
    ['said it stopped', beat({ state: 'stopped', why: 'the run ended (finished)' }), false, at(999), false, 'stopped'],
    ['no sentinel.json', null, null, at(0), true, 'none'],
  ] as const)('%s: %s', (_, b, alive, now, active, state) => {
    expect(sentinelView(b, alive, now, active).state).toBe(state);
  });

  it('says its age, why it is silent, and why it stopped', () => {
    expect(sentinelText(sentinelView(beat(), true, at(12), true))).toBe('sentinel ok, 12 s ago');
    expect(sentinelText(sentinelView(beat(), true, at(45), true))).toBe(
      `sentinel silent since ${beat().heartbeatAt} (no heartbeat for 45 s)`,
    );
    expect(sentinelView(beat(), true, null, true)).toMatchObject({ state: 'silent', ageS: null });
    const stopped = beat({ state: 'stopped', why: 'the run ended (finished)' });
    expect(sentinelText(sentinelView(stopped, false, at(999), false))).toBe(
      'sentinel stopped: the run ended (finished)',
    );
  });
});

describe('tarChunks', () => {
  it('writes an archive the system tar unpacks byte for byte, long paths and modes included', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-tar-'));
    try {
      const long = `${'a'.repeat(90)}/${'b'.repeat(60)}/${'c'.repeat(80)}.js`;
      const entries = [
        { path: 'bin/node', mode: 0o755, data: Buffer.from('#!/bin/sh\necho hi\n') },
        { path: long, mode: 0o644, data: Buffer.alloc(1000, 7) },
        { path: 'empty', mode: 0o644, data: Buffer.alloc(0) },
      ];
      writeFileSync(join(dir, 'x.tar'), Buffer.concat([...tarChunks(entries)]));
      execFileSync('tar', ['-xf', 'x.tar'], { cwd: dir });
      for (const e of entries) {
        expect(readFileSync(join(dir, e.path)).equals(e.data)).toBe(true);
        expect(statSync(join(dir, e.path)).mode & 0o777).toBe(e.mode);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the sentinel's digest keeper", () => {
  it('runs its last update alone: a beat meanwhile or after starts none beside it', { timeout: 5_000 }, async () => {
    const calls: boolean[] = [];
    let running = 0;
    let most = 0;
    let release = (): void => undefined;
    const digest: SentinelDigest = {
      update: async (o) => {
        calls.push(o?.force ?? false);
        most = Math.max(most, ++running);
        await new Promise<void>((r) => (release = r));
        running--;
        return null;
      },
    };
    const keeper = new DigestKeeper(digest, new DiskReport('head', () => undefined), '/run/stdout.log');
    keeper.update(); // a period's
    const last = keeper.last();
    keeper.update(); // a beat while the period's runs: skipped
    release();
    await vi.waitFor(() => expect(calls).toEqual([false, true]));
    keeper.update(); // a beat during the last update (the heartbeat goes on until the end is delivered)
    release();
    await last;
    keeper.update();
    expect(calls).toEqual([false, true]);
    expect(most).toBe(1);
  });
});
