import { describe, expect, it } from 'vitest';
import { OpenFollows } from '../../src/remote/open-follows.js';

function handle(offset: number): { offset: number; closed: number; close(): void } {
  return {
    offset,
    closed: 0,
    close() {
      this.closed++;
    },
  };
}

describe('OpenFollows', () => {
  it('closes at the end only the follows their owners have not closed, each once', () => {
    const follows = new OpenFollows();
    const a = handle(10);
    const b = handle(20);
    const ta = follows.track(a);
    const tb = follows.track(b);
    expect(tb.offset).toBe(20);
    ta.close();
    follows.closeAll();
    follows.closeAll();
    expect(a.closed).toBe(1);
    expect(b.closed).toBe(1);
  });

  it('reads the offset of the follow as it moves', () => {
    const follows = new OpenFollows();
    const a = handle(1);
    const t = follows.track(a);
    a.offset = 99;
    expect(t.offset).toBe(99);
  });
});
