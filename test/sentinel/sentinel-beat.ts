// A sentinel.json beat for the pure tests (src/runs/sentinel-status.ts): a running sentinel of run
// `r` that beat at 10:00:10, every 15 s, with one redacted channel; `over` changes what a test pins.
import type { SentinelBeat } from '../../src/runs/sentinel-status.js';

export const sentinelBeat = (over: Partial<SentinelBeat> = {}): SentinelBeat => ({
  v: 1,
  runId: 'r',
  pid: 42,
  startedAt: '2026-12-05T10:00:00.000Z',
  heartbeatAt: '2026-12-05T10:00:10.000Z',
  periodMs: 15_000,
  notify: ['json://h/***'],
  state: 'running',
  sent: 0,
  failures: [],
  ...over,
});
