// The trainer's lines through a real RunFeed over the local transport: a log written in chunks
// cut inside ANSI codes and UTF-8 characters shows the same lines as the whole file, each byte once;
// a long log attached through the backfill starts mid-log (and says so) with the raw lines just
// before the seam, then continues with what the trainer writes next; a truncated log is said.
import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalTransport } from '../../src/remote/index.js';
import type { Target } from '../../src/runs/index.js';
import { RunFeed } from '../../src/session/run-feed.js';
import { PaneLines } from './pane-lines.js';
import { SHARED } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';
import { localTarget, runningSummary } from '../harness/local-run.js';

const stdoutLog = readFileSync(`${SHARED}fixtures/areal-logs/run-a/stdout.log`);

function wholeLines(bytes: Buffer): string[] {
  const r = new PaneLines();
  r.push(bytes);
  return r.view().lines.map((l) => l.text);
}

describe('trainer lines through a RunFeed (local transport)', () => {
  let dir: string;
  let transport: LocalTransport;
  const feeds: RunFeed[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-lines-'));
    transport = new LocalTransport();
  });

  afterAll(async () => {
    for (const f of feeds) f.close();
    await transport.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function open(log: string, backfillThresholdBytes?: number, onChange: () => void = () => {}): RunFeed {
    const target: Target = localTarget(dir);
    const feed = new RunFeed({
      transport,
      target,
      summary: runningSummary('lines-run'),
      logPath: log,
      statePollMs: 60_000,
      backfillThresholdBytes,
      onChange,
    });
    feeds.push(feed);
    feed.start();
    return feed;
  }

  const shown = (f: RunFeed) => f.getView().trainerLines!.lines.map((l) => l.text);

  it('a log written in awkward chunks shows exactly the lines of the whole file', async () => {
    const log = join(dir, 'chunks.log');
    writeFileSync(log, '');
    const feed = open(log);
    // Cuts inside the first ANSI code, inside a 3-byte box character, and elsewhere.
    const esc = stdoutLog.indexOf('\x1b[1;38;2');
    const box = stdoutLog.indexOf('╒');
    const cuts = [esc + 3, box + 1, box + 2, 100_001, 250_000, stdoutLog.length];
    let at = 0;
    for (const c of cuts) {
      appendFileSync(log, stdoutLog.subarray(at, c));
      at = c;
      // Each piece is read before the next is written: the cut reaches the reader as written.
      await waitFor(() => feed.trainerLinesOffset === c, { what: `the feed to read ${c} bytes` });
    }
    const expected = wholeLines(stdoutLog);
    await waitFor(() => shown(feed).at(-1) === expected.at(-1), {
      timeoutMs: 15_000,
      what: 'the last line in the pane',
    });
    expect(shown(feed)).toEqual(expected);
    expect(feed.getView().trainerLines!.startsMidLog).toBe(false);

    // Truncated and rewritten: said in the pane, then the new lines.
    truncateSync(log, 0);
    appendFileSync(log, 'fresh start\n');
    await waitFor(() => shown(feed).at(-1) === 'fresh start', {
      timeoutMs: 15_000,
      what: 'the line after the truncation',
    });
    expect(shown(feed).at(-2)).toMatch(/^— log (truncated|replaced): reading it again from the start —$/);
  });

  it('a new run whose log appears after following started: its lines, with no reset note', async () => {
    const log = join(dir, 'later.log');
    let changes = 0;
    const feed = open(log, undefined, () => changes++);
    // The feed has attached (its follower looks for the file at once): the file then appears to it.
    await waitFor(() => changes > 0, { what: 'the feed to attach' });
    writeFileSync(log, '\x1b[37m(AReaL)\x1b[0m \x1b[37m20260525-12:00:00.000 WebGymTrain INFO: GRPO starting\x1b[0m\n');
    await waitFor(() => shown(feed).length > 0, { timeoutMs: 15_000, what: 'the first line' });
    expect(shown(feed)).toEqual(['(AReaL) 20260525-12:00:00.000 WebGymTrain INFO: GRPO starting']);
  });

  it('a long log attached through the backfill: the raw lines before the seam, marked mid-log, then the new ones', async () => {
    const log = join(dir, 'long.log');
    // 4 copies of run-a (≈1.9 MB): more than the 256 KiB read before the seam.
    writeFileSync(log, Buffer.concat([stdoutLog, stdoutLog, stdoutLog, stdoutLog]));
    const feed = open(log, 64 * 1024);
    const expected = wholeLines(stdoutLog);
    await waitFor(() => shown(feed).at(-1) === expected.at(-1), {
      timeoutMs: 20_000,
      what: 'the tail of the long log',
    });
    const view = feed.getView().trainerLines!;
    expect(view.startsMidLog).toBe(true);
    // The lines held are the end of the log, exactly (after the first, possibly partial, table).
    const lines = view.lines.map((l) => l.text);
    const firstWhole = lines.findIndex((t) => t.startsWith('(AReaL)'));
    expect(firstWhole).toBeGreaterThanOrEqual(0);
    const suffix = lines.slice(firstWhole);
    expect(suffix.length).toBeGreaterThan(20);
    const whole = wholeLines(Buffer.concat([stdoutLog, stdoutLog, stdoutLog, stdoutLog]));
    expect(whole.slice(-suffix.length)).toEqual(suffix);
    expect(suffix.filter((t) => /^ {2}\[stats table: \d+ keys\]$/.test(t)).length).toBeGreaterThan(1);
    // The event history came through the filter (the parser's step events), not the raw tail: the
    // raw tail is shown first, the history's note comes when it is read.
    await waitFor(() => feed.getView().log.some((l) => l.text.startsWith('history:')), {
      timeoutMs: 20_000,
      what: 'the history note',
    });

    appendFileSync(
      log,
      '\x1b[31m\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m \x1b[31m20260525-17:00:00.000 RLTrainer ERROR: after attach\x1b[0m\n',
    );
    await waitFor(() => shown(feed).at(-1) === '(AReaL) 20260525-17:00:00.000 RLTrainer ERROR: after attach', {
      timeoutMs: 15_000,
      what: 'the new line',
    });
    expect(feed.getView().trainerLines!.lines.at(-1)!.level).toBe('error');
  });
});
