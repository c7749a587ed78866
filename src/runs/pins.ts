// Pinned episodes: a record and its screenshots copied to this machine, because webgym/train.py
// deletes `logs/root/<exp>/<trial>/rollout` on every start (a run as root loses them at each resume).
// `$XDG_DATA_HOME/awrl-tui/pins/<run>/<kind>-<version>/` holds the record, its PNGs and pin.json.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { baseName, type EpisodeSummary } from '../episodes/index.js';
import type { Shot } from './dump-shots.js';

export interface PinRecord {
  runId: string;
  target: string;
  kind: EpisodeSummary['kind'];
  version: number;
  taskId: string;
  episodeIdx: number;
  /** The record's path on the target. */
  file: string;
  pinnedAt: string;
  /** Screenshots that could not be copied, and why. */
  missing: { path: string; why: string }[];
}

export function pinsRoot(env: Record<string, string | undefined> = process.env): string {
  const data = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(data, 'awrl-tui', 'pins');
}

export interface PinInput {
  runId: string;
  target: string;
  episode: EpisodeSummary;
  recordText: string;
  shots: Map<string, Shot>;
  env?: Record<string, string | undefined>;
  now?: Date;
}

/** Writes the pin; returns its directory and the pin record. */
export function writePin(p: PinInput): { dir: string; pin: PinRecord } {
  const e = p.episode;
  const dir = join(pinsRoot(p.env), p.runId, `${e.kind}-${e.version}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const missing: PinRecord['missing'] = [];
  for (const [path, s] of p.shots) {
    if (s.ok) writeFileSync(join(dir, baseName(path)), s.bytes);
    else missing.push({ path, why: s.why });
  }
  writeFileSync(join(dir, baseName(e.file)), p.recordText);
  const pin: PinRecord = {
    runId: p.runId,
    target: p.target,
    kind: e.kind,
    version: e.version,
    taskId: e.taskId,
    episodeIdx: e.episodeIdx,
    file: e.file,
    pinnedAt: (p.now ?? new Date()).toISOString(),
    missing,
  };
  writeFileSync(join(dir, `${e.taskId}_ep${e.episodeIdx}.pin.json`), `${JSON.stringify(pin)}\n`);
  return { dir, pin };
}

/** The pins of a run (none when nothing was pinned). */
export function readPins(runId: string, env?: Record<string, string | undefined>): PinRecord[] {
  const root = join(pinsRoot(env), runId);
  const out: PinRecord[] = [];
  let dirs: string[];
  try {
    dirs = readdirSync(root);
  } catch {
    return out;
  }
  for (const d of dirs) {
    let names: string[] = [];
    try {
      names = readdirSync(join(root, d)).filter((n) => n.endsWith('.pin.json'));
    } catch {
      continue;
    }
    for (const n of names) {
      try {
        out.push(JSON.parse(readFileSync(join(root, d, n), 'utf8')) as PinRecord);
      } catch {
        // A pin file that does not read is not a pin.
      }
    }
  }
  return out;
}
