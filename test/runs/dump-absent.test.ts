// Why a run shows no dumps: one sentence for `awrl-tui episodes` and the cockpit's Trajectories
// screen (both call noDumpsWhy), dumping off first because it says how to turn it on.
import { describe, expect, it } from 'vitest';
import { noDumpsWhy } from '../../src/runs/dump-absent.js';

const listing = { logDir: '/fr/logs/u/exp/trial', missing: [] as ('train' | 'eval')[] };

describe('noDumpsWhy', () => {
  it('dumping off: says the config key and the override that turns it on, and where dumps then go', () => {
    expect(noDumpsWhy({ dumpToFile: false, listing: { ...listing, missing: ['train', 'eval'] } })).toBe(
      'dumping is off: rollout.dump_to_file is false in its config. Launch with the override ' +
        'rollout.dump_to_file=true (episodes and screenshots then go to /fr/logs/u/exp/trial/rollout/<version>/)',
    );
  });

  it('dumping on but no rollout directory: not dumped yet, or wiped by train.py on a restart', () => {
    expect(noDumpsWhy({ dumpToFile: true, listing: { ...listing, missing: ['train'] } })).toMatch(
      /^\/fr\/logs\/u\/exp\/trial\/rollout does not exist: .*GRPO group.*webgym\/train\.py removed it on a restart$/,
    );
  });

  it('a version asked for that has no records, and an empty rollout directory', () => {
    expect(noDumpsWhy({ dumpToFile: null, listing, version: 7 })).toBe(
      'no version directory 7 with episodes under /fr/logs/u/exp/trial/rollout',
    );
    expect(noDumpsWhy({ dumpToFile: true, listing })).toBe('/fr/logs/u/exp/trial/rollout holds no episode records');
  });
});
