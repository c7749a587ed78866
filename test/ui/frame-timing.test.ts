// When the cockpit paints a session change: at once when its last frame is at least a frame old (a
// step after a quiet spell shows without waiting a frame), else once it is (a burst of changes is
// one frame). Fake timers (performance.now among them): the times are exact.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Cockpit } from '../../src/ui/cockpit.js';
import { TerminalPainter } from '../../src/ui/painter.js';
import { StaticSession } from '../../src/session/static-session.js';

describe('the cockpit paints a change', () => {
  beforeEach(
    () =>
      void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] }),
  );
  afterEach(() => void vi.useRealTimers());

  it('at once after a quiet spell, and a burst right after it a frame later, as one frame', () => {
    const session = new StaticSession({});
    const painter = new TerminalPainter({ write: () => true });
    const cockpit = new Cockpit({ session, painter, size: { columns: 80, rows: 24 }, colors: false, frameMs: 100 });
    cockpit.start();
    const start = cockpit.frames; // the first frame, painted by start()
    vi.advanceTimersByTime(500); // quiet: no change, no frame (the clock's frame comes each second)
    expect(cockpit.frames).toBe(start);

    session.update({ notice: 'a step' });
    vi.advanceTimersByTime(0);
    expect(cockpit.frames).toBe(start + 1);

    for (let i = 0; i < 50; i++) session.update({ notice: `burst ${i}` });
    vi.advanceTimersByTime(99);
    expect(cockpit.frames).toBe(start + 1);
    vi.advanceTimersByTime(1);
    expect(cockpit.frames).toBe(start + 2);
    cockpit.stop();
  });
});
