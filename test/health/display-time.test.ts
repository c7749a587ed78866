// displayMs reads a naive log time as this machine's local time (as the rest of the screen does) with
// one Date.parse per minute of log: equal to a Date.parse of every time, across the zone changes of
// zones that shift by an hour, by half an hour (Lord Howe), at an odd offset (Kathmandu) or never.
import { afterAll, describe, expect, it } from 'vitest';
import { displayMs, naiveIso } from '../../src/health/time.js';

const savedTz = process.env.TZ;
afterAll(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

describe('displayMs', () => {
  it.each(['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC'])(
    '%s: the same as Date.parse of each time, through two years and their changes',
    (tz) => {
      process.env.TZ = tz; // Node reads the zone again when TZ is set
      let differ = 0;
      let n = 0;
      // Every 197.3 s (not a divisor of a minute: every second of a minute is visited in turn).
      for (let ms = Date.UTC(2025, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 197_300) {
        n++;
        if (displayMs(ms) !== Date.parse(naiveIso(ms))) differ++;
      }
      expect(n).toBeGreaterThan(300_000);
      expect(differ).toBe(0);
      // The zone is in effect: Berlin's winter noon is not UTC's.
      if (tz !== 'UTC') expect(displayMs(Date.UTC(2026, 0, 15, 12))).not.toBe(Date.UTC(2026, 0, 15, 12));
    },
  );
});
