// A follow problem the cockpit's log reader is told about: said once (a follower that starts again
// with the same error says nothing new), kept while an ended run's follower is paused (its log was
// never read), and cleared by the next follower's first bytes (that follower never reported it, so
// it would never clear it). Local transport, a log path that is a directory, then a file.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalTransport } from '../../src/remote/index.js';
import { RunLogFollow } from '../../src/ui/session/run-log-follow.js';
import type { LogLine } from '../../src/ui/session/types.js';
import { waitFor } from '../harness/wait.js';

describe('RunLogFollow and follow problems', () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.reverse()) await c();
    cleanups.length = 0;
  });

  it('says a problem once, keeps it across a pause, and clears it with the successor\'s first bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-rlf-problem-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const logPath = join(dir, 'stdout.log');
    mkdirSync(logPath);
    const transport = new LocalTransport({ followPollMs: 20 });
    cleanups.push(() => transport.close());
    const notes: Pick<LogLine, 'level' | 'text'>[] = [];
    const f = new RunLogFollow({ transport, logPath, clock: Date.now, ingest: () => undefined, note: (level, text) => notes.push({ level, text }), rawArrived: () => undefined });
    cleanups.push(() => f.close());
    await f.attach();
    const p = await waitFor(() => f.problem, { what: 'the problem' });
    expect(p.error).toMatch(/directory/i);
    expect(notes).toEqual([{ level: 'warning', text: p.text }]);

    // An ended run: the follower is paused, the problem stands (nothing of the log was read).
    f.pause();
    expect(f.problem).toBe(p);
    // Resumed on the same broken path: reported again by the new follower, said no second time.
    f.resume();
    await waitFor(() => f.problem !== p && f.problem, { what: 'the new follower\'s report' });
    expect(notes).toHaveLength(1);
    f.pause();

    rmdirSync(logPath);
    writeFileSync(logPath, 'hello from the trainer\n');
    f.resume();
    await waitFor(() => f.offset > 0, { what: 'the log read' });
    expect(f.problem).toBeNull();
    expect(notes.at(-1)).toEqual({ level: 'info', text: `reading ${logPath} again` });
    // The trainer pane: the warning, then 'reading again', then what it read.
    const lines = f.trainerLines().lines.map((l) => l.text);
    expect(lines).toEqual([`— ${p.text} —`, `— reading ${logPath} again —`, 'hello from the trainer']);
  });
});
