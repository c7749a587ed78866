// `follow` feeds the trainer's checkpoint saves to its alerts: followRun's onSave gets them in log
// order among the events (the same sequence as the reader over the whole log at once), from a
// real file followed through a real transport, and the events themselves are what they were
// without onSave (the saves are no event of the contract: `follow --json` prints none).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HealthEvent } from '../../src/health/index.js';
import { LocalTransport } from '../../src/remote/index.js';
import { followRun } from '../../src/runs/index.js';
import { TrainerLogReader } from '../../src/trainer-log/index.js';

const LOG = readFileSync('/work/shared/fixtures/areal-logs/run-a/main.log');
const brief = (e: HealthEvent) => `${e.type}@${'time' in e ? e.time : ''}`;

describe('followRun with onSave', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-follow-saves-'));
  const transport = new LocalTransport();
  afterAll(async () => {
    await transport.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function follow(path: string, withSaves: boolean): Promise<HealthEvent[]> {
    const out: HealthEvent[] = [];
    const f = followRun(transport, path, {
      onEvent: (e) => out.push(e),
      ...(withSaves ? { onSave: (s) => out.push(s) } : {}),
    });
    expect(await f.finish()).toBe(true);
    return out;
  }

  it("the fixture's saves come in log order (the first between step 4 and step 5), as the reader orders the whole log; the events are unchanged", async () => {
    const path = join(dir, 'stdout.log');
    writeFileSync(path, LOG);
    const reader = new TrainerLogReader({ lines: false });
    const whole = [...reader.push(LOG).events, ...reader.end().events].map(brief);
    const got = await follow(path, true);
    expect(got.map(brief)).toEqual(whole);
    expect(got.filter((e) => e.type === 'save').map((e) => [e.time, (e as { step?: number }).step])).toEqual([
      ['2026-05-25T13:02:18.087', 4],
      ['2026-05-25T16:18:39.120', 9],
    ]);
    const steps = got.map(brief).filter((b) => b.startsWith('step@') || b.startsWith('save@'));
    const save = steps.indexOf('save@2026-05-25T13:02:18.087');
    expect(steps.slice(save - 1, save + 2)).toEqual([
      'step@2026-05-25T12:51:22.519',
      'save@2026-05-25T13:02:18.087',
      'step@2026-05-25T13:02:20.716',
    ]);
    expect(got.filter((e) => e.type !== 'save')).toEqual(await follow(path, false));
  });

  it('a save on the last line, without its newline, still counts at the end', async () => {
    const end = LOG.indexOf('\n', LOG.indexOf('Saving HF'));
    const path = join(dir, 'cut.log');
    writeFileSync(path, LOG.subarray(0, end));
    const got = await follow(path, true);
    expect(got.at(-1)).toMatchObject({ type: 'save', step: 4 });
  });
});
