// What the sentinel is told on its stdin (never argv, never a file: its notification URLs carry
// tokens): the target as the launcher knows it (its workdir, setup line, backend: for the state
// polls and squeue), its channels, its heartbeat period.
import { z } from 'zod';
import type { Target } from '../runs/targets.js';
import { SENTINEL_PERIOD_MS } from '../runs/sentinel-status.js';
import { basesFromEnv, type ChannelBases } from '../notify/index.js';

const inputSchema = z.object({
  v: z.literal(1),
  target: z.object({
    name: z.string(),
    workdir: z.string(),
    python: z.string(),
    setup: z.string().optional(),
    backend: z.enum(['direct', 'slurm']),
  }),
  runId: z.string(),
  notify: z.array(z.string()),
  /** Slack's and Discord's webhook bases as the launcher's environment sets them (tests). */
  bases: z.object({ slack: z.string(), discord: z.string() }),
  periodMs: z.number().int().positive().default(SENTINEL_PERIOD_MS),
});

export interface SentinelInput {
  runId: string;
  bases: ChannelBases;
  /** The target as seen from the head itself: the local transport, the launcher's name for it. */
  target: Target;
  notify: string[];
  periodMs: number;
}

/** The stdin text (one JSON document) -> the sentinel's input; throws a plain message when it is not one. */
export function parseSentinelInput(text: string): SentinelInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('the sentinel reads one JSON document on its stdin; it got none');
  }
  const r = inputSchema.safeParse(json);
  if (!r.success) throw new Error(`the sentinel's input is not valid: ${r.error.issues[0]?.message ?? '?'}`);
  const t = r.data.target;
  return {
    target: { ...t, host: 'local', slurm: { extraArgs: [] } },
    runId: r.data.runId,
    bases: r.data.bases,
    notify: r.data.notify,
    periodMs: r.data.periodMs,
  };
}

/** The input as the launcher writes it (the inverse of parseSentinelInput). */
export function sentinelInputText(
  runId: string,
  target: Target,
  notify: readonly string[],
  periodMs: number,
  env: Record<string, string | undefined> = process.env,
): string {
  const t = {
    name: target.name,
    workdir: target.workdir,
    python: target.python,
    ...(target.setup !== undefined ? { setup: target.setup } : {}),
    backend: target.backend,
  };
  return JSON.stringify({ v: 1, runId, target: t, notify, bases: basesFromEnv(env), periodMs });
}
