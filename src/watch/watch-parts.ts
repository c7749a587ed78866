// The factory's list of a watch's parts (watch-part.ts), in the order their hooks are called. A new
// thing the watch should notice is a part added here; the core (watch-core.ts) knows none by name.
import type { RayBringUp } from './ray-bringup-log.js';
import type { WatchCore } from './watch-core.js';
import type { WatchPart } from './watch-part.js';
import { ConnectionWatch } from './part-connection.js';
import { IdleNodesPart } from './part-idle-nodes.js';
import { LogLinesPart } from './part-lines.js';
import { LogSilencePart } from './part-log-silence.js';
import { NodeFailurePart } from './part-node-failure.js';
import { OutsideAlertsPart } from './part-outside.js';
import { RayPhasePart } from './part-ray.js';
import { SlurmEndPart } from './part-slurm-end.js';
import { StatePoll } from './part-state-poll.js';

export interface WatchParts {
  /** Every part, in hook order. */
  all: WatchPart[];
  /** What RunWatch's getters read. */
  silentSince(): number | null;
  rayBringUp(): RayBringUp | null;
}

export function watchParts(core: WatchCore): WatchParts {
  const slurm = core.o.target.backend === 'slurm';
  const poll = new StatePoll(core);
  const connection = new ConnectionWatch(core, () => poll.intervalMs());
  const ray = slurm ? new RayPhasePart(core) : null;
  const all: (WatchPart | null)[] = [
    connection,
    poll,
    new LogSilencePart(core),
    // A failed node, an idle one, then the outside ones: the order their alerts are told in.
    slurm ? new NodeFailurePart(core) : null,
    slurm ? new SlurmEndPart(core) : null,
    new IdleNodesPart(core),
    core.o.outsideAlerts?.length ? new OutsideAlertsPart(core, core.o.outsideAlerts) : null,
    // The bring-up's lines are read before the lines are told.
    ray,
    core.o.lines ? new LogLinesPart(core) : null,
  ];
  return {
    all: all.filter((p): p is WatchPart => p !== null),
    silentSince: () => connection.silentSince,
    rayBringUp: () => ray?.current ?? null,
  };
}
