// Attaching to a long log shows its last steps at once: while the history is still coming (here
// held back at the transport), the view has the tail's last step, the log pane's lines and the
// progress (`reading history: … of …` in the header); once it is read, the view is the history's,
// every step exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { openTransport, type Transport } from '../../src/remote/index.js';
import { parseLogBytes, type StepEvent } from '../../src/trainer-log/index.js';
import { RunFeed } from '../../src/session/run-feed.js';
import { headerLines, historyText, formatBytes } from '../../src/ui/panels/header.js';
import { waitFor } from '../harness/wait.js';
import { localTarget, runningSummary } from '../harness/local-run.js';

const RUN_A = new URL('../fixtures/shared/fixtures/areal-logs/run-a/stdout.log', import.meta.url).pathname;

/** A local transport whose commands' output is held until `release()` (the filter still running). */
function gated(t: Transport): { t: Transport; release: () => void; held: () => boolean } {
  let open = false;
  let held = false;
  const waiting: (() => void)[] = [];
  const wrapped = Object.create(t) as Transport;
  wrapped.execStream = (argv, opts) => {
    const s = t.execStream(argv, opts);
    if (argv[3] !== 'awrl-backfill') return s;
    held = true;
    const out = new PassThrough();
    s.stdout.pause();
    const go = () => s.stdout.pipe(out);
    if (open) go();
    else waiting.push(go);
    return { ...s, stdout: out };
  };
  return {
    t: wrapped,
    held: () => held,
    release: () => {
      open = true;
      for (const w of waiting.splice(0)) w();
    },
  };
}

describe('attach preview', () => {
  let dir: string;
  let transport: Transport;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awrl-preview-'));
    transport = await openTransport('local');
  });
  afterAll(async () => {
    await transport.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the tail first (last step, lines, progress), then the whole history, each step once', async () => {
    const one = readFileSync(RUN_A);
    const bytes = Buffer.concat([one, one, one, one, one]);
    const log = join(dir, 'stdout.log');
    writeFileSync(log, bytes);
    const steps = parseLogBytes(bytes).filter((e): e is StepEvent => e.type === 'step');
    const g = gated(transport);
    const feed = new RunFeed({
      transport: g.t,
      target: localTarget(dir),
      summary: runningSummary('r'),
      logPath: log,
      backfillThresholdBytes: 64 * 1024,
      backfillCache: null,
      statePollMs: 60_000,
      onChange: () => {},
    });
    feed.start();
    try {
      await waitFor(() => g.held() && feed.getView().figures.step === steps.at(-1)!.globalStep, {
        timeoutMs: 20_000,
        what: 'the last step from the tail',
      });
      const early = feed.getView();
      expect(early.history).toBeDefined();
      expect(early.history!.readBytes).toBeLessThan(early.history!.totalBytes || 1);
      expect(early.trainerLines!.lines.length).toBeGreaterThan(0);
      // Nothing of the history is in the watch's store yet.
      expect(feed.store.lastStepEvent).toBeNull();
      const header = headerLines({
        runId: 'r',
        target: 'local',
        connection: { state: 'ready' },
        runState: 'running',
        figures: early.figures,
        connectionAt: 0,
        now: 0,
        history: { readBytes: 640e6, totalBytes: 1.07e9 },
      });
      expect(JSON.stringify(header[0])).toContain('reading history: 640 MB of 1.07 GB');
      g.release();
      await waitFor(() => feed.getView().history === undefined, { timeoutMs: 20_000, what: 'the history read' });
      const view = feed.getView();
      expect(view.figures.step).toBe(steps.at(-1)!.globalStep);
      expect(view.log.some((l) => l.text.startsWith('history:'))).toBe(true);
      // Every step of the log once: the store's step count is the log's.
      expect(feed.store.stepCount).toBe(steps.length);
    } finally {
      g.release();
      feed.close();
    }
  });

  it('closing the feed while the history is read stops the filter on the target', async () => {
    const one = readFileSync(RUN_A);
    const log = join(dir, 'closed.log');
    writeFileSync(log, Buffer.concat([one, one, one, one, one]));
    const g = gated(transport);
    const feed = new RunFeed({
      transport: g.t,
      target: localTarget(dir),
      summary: runningSummary('r'),
      logPath: log,
      backfillThresholdBytes: 64 * 1024,
      backfillCache: null,
      statePollMs: 60_000,
      onChange: () => {},
    });
    feed.start();
    const filters = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8');
            return argv.includes('awrl-backfill') && argv.includes(log);
          } catch {
            return false;
          }
        });
    try {
      await waitFor(() => g.held() && filters().length > 0, { timeoutMs: 20_000, what: 'the filter running' });
    } finally {
      feed.close();
    }
    await waitFor(() => filters().length === 0, { timeoutMs: 20_000, what: 'the filter stopped' });
    expect(feed.store.lastStepEvent).toBeNull();
  });

  it('says sizes as people do, shorter where narrow', () => {
    expect(formatBytes(640e6)).toBe('640 MB');
    expect(formatBytes(1.07e9)).toBe('1.07 GB');
    expect(historyText({ readBytes: 640e6, totalBytes: 1.07e9 }, 200)).toBe(' │ reading history: 640 MB of 1.07 GB');
    expect(historyText({ readBytes: 640e6, totalBytes: 1.07e9 }, 30)).toBe(' │ history 59%');
    expect(historyText({ readBytes: 640e6, totalBytes: 1.07e9 }, 10)).toBe('');
  });
});
