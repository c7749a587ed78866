// The sentinel's disk rules (src/sentinel/disk-watch.ts), its words (src/runs/sentinel-disk.ts,
// sentinel-status.ts) and sentinel.json's padded form read back by the list script's own `read -r`.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskWatch, diskAlert, type WriteResult } from '../../src/sentinel/disk-watch.js';
import { beatSize, padded, writeInPlace, writeWhole } from '../../src/sentinel/beat-file.js';
import { parseSentinelBeat, sentinelText, sentinelView, type SentinelBeat } from '../../src/runs/sentinel-status.js';
import { diskChangeText, diskText } from '../../src/runs/sentinel-disk.js';
import { sentinelBeat } from './sentinel-beat.js';

const RUN = '/w/.awrl/runs/r1';
const fail = (code: string, at: string, file = 'sentinel.json'): WriteResult => ({
  ok: false,
  path: `${RUN}/${file}.${4242}.tmp`,
  code,
  message: `${code}: some words, open '${RUN}/${file}.4242.tmp'`,
  at,
});
const OK: WriteResult = { ok: true };

describe('DiskWatch', () => {
  it('one ENOSPC is a full disk: an error alert naming the host, the file and what is at stake', () => {
    const d = new DiskWatch();
    expect(d.record('heartbeat', fail('ENOSPC', '2026-12-05T10:02:11.000Z'))).toBe(true);
    expect(d.state()).toEqual({
      state: 'full',
      since: '2026-12-05T10:02:11.000Z',
      path: `${RUN}/sentinel.json`,
      error: 'ENOSPC',
      message: 'some words',
    });
    const a = diskAlert(d.state(), 'head1', d.persistent())!;
    expect(a).toMatchObject({ id: 'disk-full', severity: 'error', title: "the run's filesystem is full" });
    expect(a.detail).toBe(
      `the run's filesystem on head1 has no space left (ENOSPC writing ${RUN}/sentinel.json): ` +
        "the run's log cannot grow, and its checkpoints fail too if they are saved there",
    );
    expect(a.advice).toContain(`df -h ${RUN} on head1`);
  });

  it('a quota (EDQUOT) is a full disk too, in its own words', () => {
    const d = new DiskWatch();
    d.record('digest', fail('EDQUOT', '2026-12-05T10:02:11.000Z', 'sentinel-digest'));
    const a = diskAlert(d.state(), 'head1', d.persistent())!;
    expect(a).toMatchObject({ id: 'disk-full', title: "the run's disk quota is exceeded" });
    expect(a.detail).toContain(`is over its disk quota (EDQUOT writing ${RUN}/sentinel-digest)`);
    expect(diskText(d.state()!)).toBe('disk quota full since 10:02:11Z (EDQUOT)');
  });

  it('one EACCES is said as what it is, never "full", and is an alert only when it happens again', () => {
    const d = new DiskWatch();
    d.record('heartbeat', fail('EACCES', '2026-12-05T10:00:00.000Z'));
    expect(d.state()).toMatchObject({ state: 'failing', error: 'EACCES' });
    expect(diskText(d.state()!)).toBe('its writes in the run dir fail since 10:00:00Z (EACCES: permission denied)');
    expect(diskAlert(d.state(), 'h', d.persistent())).toBeNull();
    d.record('heartbeat', fail('EACCES', '2026-12-05T10:00:15.000Z'));
    expect(diskAlert(d.state(), 'h', d.persistent())).toMatchObject({
      id: 'run-dir-unwritable',
      severity: 'warning',
    });
    expect(diskAlert(d.state(), 'h', d.persistent())!.detail).toContain('not a full disk');
    d.record('heartbeat', OK);
    expect(d.state()).toBeUndefined();
  });

  it('a run dir removed is no alert: the sentinel stops for it', () => {
    const d = new DiskWatch();
    d.record('heartbeat', fail('ENOENT', '2026-12-05T10:00:00.000Z'));
    d.record('heartbeat', fail('ENOENT', '2026-12-05T10:00:15.000Z'));
    expect(d.persistent()).toBe(true);
    expect(diskAlert(d.state(), 'h', d.persistent())).toBeNull();
  });

  it('clears only once every writer that was refused wrote again; full from the first refusal on', () => {
    const d = new DiskWatch();
    d.record('heartbeat', fail('ENOSPC', '2026-12-05T10:00:00.000Z'));
    d.record('snapshot', fail('ENOSPC', '2026-12-05T10:00:05.000Z', 'sentinel-snapshot'));
    // A 4 KiB beat fits in a page another process freed: the snapshot still does not.
    expect(d.record('heartbeat', OK)).toBe(true);
    expect(d.state()).toMatchObject({
      state: 'full',
      since: '2026-12-05T10:00:00.000Z',
      path: `${RUN}/sentinel-snapshot`,
    });
    expect(d.stateIf('snapshot', OK)).toBeUndefined();
    expect(d.record('snapshot', OK)).toBe(true);
    expect(d.state()).toBeUndefined();
    expect(diskAlert(d.state(), 'h', d.persistent())).toBeNull();
  });

  it('no room wins over another failure standing beside it', () => {
    const d = new DiskWatch();
    d.record('digest', fail('EIO', '2026-12-05T10:00:00.000Z', 'sentinel-digest'));
    d.record('heartbeat', fail('ENOSPC', '2026-12-05T10:00:05.000Z'));
    expect(d.state()).toMatchObject({ state: 'full', error: 'ENOSPC' });
  });
});

describe('sentinel.json padded to a fixed size', () => {
  it('is read back by the list script’s `read -r` as one line, and parses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-beat-'));
    try {
      const path = join(dir, 'sentinel.json');
      const beat = sentinelBeat({ runId: 'r1' });
      expect(writeWhole(path, JSON.stringify(beat))).toBeNull();
      expect(statSync(path).size).toBe(4096);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const full = { ...beat, disk: { state: 'full' as const, since: beat.heartbeatAt, path, error: 'ENOSPC' } };
      // In place: the same size, and the longer line first if it fits (here it does).
      expect(writeInPlace(path, [JSON.stringify(full), JSON.stringify(beat)])).toBeNull();
      expect(statSync(path).size).toBe(4096);
      const line = execFileSync('bash', ['-c', 'IFS= read -r sj < "$1"; printf %s "$sj"', 'x', path], {
        encoding: 'utf8',
      });
      expect(parseSentinelBeat(line)).toEqual(full);
      // A line that does not fit the file is never written past its end: the shorter one is.
      const long = JSON.stringify({ ...full, why: 'x'.repeat(5000) });
      expect(writeInPlace(path, [long, JSON.stringify(beat)])).toBeNull();
      expect(parseSentinelBeat(readFileSync(path, 'utf8').split('\n')[0])).toEqual(beat);
      expect(writeInPlace(path, [long])).toMatchObject({ code: 'EFBIG' });
      expect(beatSize(long)).toBe(8192);
      expect(padded('{}', 2)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runs says the disk', () => {
  const beat = (disk?: SentinelBeat['disk']): SentinelBeat =>
    sentinelBeat({ heartbeatAt: '2026-12-05T10:02:20.000Z', notify: [], ...(disk ? { disk } : {}) });
  const disk = {
    state: 'full' as const,
    since: '2026-12-05T10:02:11.000Z',
    path: `${RUN}/sentinel.json`,
    error: 'ENOSPC',
  };

  it('running: "sentinel ok, 12 s ago · disk full since 10:02:11Z (ENOSPC)"', () => {
    const v = sentinelView(beat(disk), true, '2026-12-05T10:02:32.000Z', true);
    expect(v).toMatchObject({ state: 'running', disk });
    expect(sentinelText(v)).toBe('sentinel ok, 12 s ago · disk full since 10:02:11Z (ENOSPC)');
    expect(sentinelText(sentinelView(beat(), true, '2026-12-05T10:02:32.000Z', true))).toBe('sentinel ok, 12 s ago');
  });

  it('an attached watch tells the episode and its end (follow, the cockpit’s status line)', () => {
    expect(diskChangeText(disk, null)).toBe(
      `sentinel disk full since 10:02:11Z: ENOSPC writing ${RUN}/sentinel.json; ` +
        "the run's log and checkpoints may fail (the sentinel sends this alert)",
    );
    expect(diskChangeText({ ...disk, state: 'failing', error: 'EROFS' }, null)).toBe(
      `sentinel its writes in the run dir fail since 10:02:11Z: EROFS (the filesystem is read-only) writing ${RUN}/sentinel.json`,
    );
    expect(diskChangeText(null, disk)).toBe(
      'sentinel its writes in the run dir succeed again (was: disk full since 10:02:11Z (ENOSPC))',
    );
  });

  it('silent: its last beat’s disk says why it may be', () => {
    const v = sentinelView(beat(disk), true, '2026-12-05T10:03:20.000Z', true);
    expect(sentinelText(v)).toBe(
      'sentinel silent since 2026-12-05T10:02:20.000Z (no heartbeat for 60 s; its last beat: disk full since 10:02:11Z (ENOSPC))',
    );
  });
});
