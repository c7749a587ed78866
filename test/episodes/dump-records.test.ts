// The simulator's dumps as webgym writes them, read back by the episodes room: names, key order,
// Python's json.dumps bytes, mixed rewards in a group, heads that end before `steps`, a record cut
// short by a running writer, the stuck and answered-but-zero filters.
import { describe, expect, it } from 'vitest';
import { dumpGroup } from '../../src/sim/dump-records.js';
import { pyFloat, pyJsonDumps } from '../../src/sim/py-json.js';
import {
  groupsOf,
  headBeforeSteps,
  longestUnchangedRun,
  matches,
  parseListing,
  parseRecord,
  stepViews,
  summaryFromHead,
  verdicts,
  type EpisodeSummary,
} from '../../src/episodes/index.js';

const LOG = '/mnt/shared/areal-fileroot/logs/root/exp/trial';
const group = () =>
  dumpGroup({ logDir: LOG, subdir: 'rollout', tailVersion: 7, headVersion: 5, taskIndex: 41, nSamples: 8, seed: 3 });

/** A listing's answer as the target's script frames it (`head -v` for the heads), from a group's files. */
function listingOf(files: ReturnType<typeof group>, headBytes = 16384): Buffer {
  const name = (rel: string) => rel.split('/').pop()!;
  const parts: Buffer[] = [Buffer.from(`L ${LOG}\nV rollout 7\n`)];
  for (const f of files.filter((x) => x.rel.endsWith('.png')))
    parts.push(Buffer.from(`P rollout 7 ${f.bytes.length} ${name(f.rel)}\n`));
  const records = files.filter((x) => x.rel.endsWith('.json'));
  for (const f of records) parts.push(Buffer.from(`S rollout 7 ${f.bytes.length} ${name(f.rel)}\n`));
  parts.push(Buffer.from('H rollout 7\n'));
  records.forEach((f, i) => {
    parts.push(Buffer.from(`${i > 0 ? '\n' : ''}==> ${LOG}/${f.rel} <==\n`), f.bytes.subarray(0, headBytes));
  });
  parts.push(Buffer.from('\nE\n'));
  return Buffer.concat(parts);
}

describe('the simulator dumps a GRPO group as webgym does', () => {
  it('names files {task}_ep{i}.json and task_{task}_{instance}_step_NNN.png in rollout/<tail_version>/', () => {
    const files = group();
    const json = files.filter((f) => f.rel.endsWith('.json')).map((f) => f.rel);
    expect(json).toEqual(Array.from({ length: 8 }, (_, i) => `rollout/7/sim-train-41_ep${i}.json`));
    for (const f of files.filter((x) => x.rel.endsWith('.png')))
      expect(f.rel).toMatch(/^rollout\/7\/task_sim-train-41_[0-9a-f-]+_\d{4}_step_\d{3}\.png$/);
  });

  it("writes Python's json.dumps: one line, ', ' and ': ', ensure_ascii, keys in the trainer's order", () => {
    const text = group()
      .find((f) => f.rel.endsWith('_ep0.json'))!
      .bytes.toString();
    expect(text).not.toContain('\n');
    expect(text.startsWith('{"task_id": "sim-train-41", "episode_idx": 0, "n_steps": ')).toBe(true);
    const keys = Object.keys(JSON.parse(text));
    expect(keys).toEqual([
      'task_id',
      'episode_idx',
      'n_steps',
      'reward',
      'head_version',
      'tail_version',
      'screenshot_paths',
      'evaluation',
      'is_blocked',
      'episode_timed_out',
      'task_info',
      'steps',
    ]);
    expect(pyJsonDumps({ a: pyFloat(1), b: 'x→y', c: [null, true] })).toBe(
      '{"a": 1.0, "b": "x\\u2192y", "c": [null, true]}',
    );
  });

  it('mixes rewards in every group (the trainer drops a group of equal rewards before dumping)', () => {
    const rewards = group()
      .filter((f) => f.rel.endsWith('.json'))
      .map((f) => (JSON.parse(f.bytes.toString()) as { reward: number }).reward);
    expect(new Set(rewards).size).toBeGreaterThan(1);
  });
});

describe('reading dumps', () => {
  it('summarises every record from its head, before the steps holding the prompts', () => {
    const files = group();
    const l = parseListing(listingOf(files));
    expect(l.needMore).toEqual([]);
    expect(l.episodes).toHaveLength(8);
    const e0 = l.episodes.find((e) => e.episodeIdx === 0)!;
    expect(e0).toMatchObject({ kind: 'train', version: 7, taskId: 'sim-train-41', reward: 1, headVersion: 5 });
    expect(e0.taskInfo.website).toBe('https://www.github.com');
    expect(e0.file).toBe(`${LOG}/rollout/7/sim-train-41_ep0.json`);
    expect(e0.raw).not.toHaveProperty('steps');
    expect(l.shotSizes.size).toBe(files.filter((f) => f.rel.endsWith('.png')).length);
    expect(groupsOf(l.episodes)).toHaveLength(1);
  });

  it('asks for more when a head ends before steps, and says a record cut short is cut short', () => {
    const files = group();
    const l = parseListing(listingOf(files, 200));
    expect(l.episodes).toEqual([]);
    expect(l.needMore).toHaveLength(8);
    const whole = files.find((f) => f.rel.endsWith('_ep1.json'))!.bytes.toString();
    const cut = whole.slice(0, whole.length - 5000);
    const place = {
      kind: 'train' as const,
      version: 7,
      file: `${LOG}/rollout/7/sim-train-41_ep1.json`,
      fileSize: cut.length,
    };
    const s = summaryFromHead(place, cut, true) as EpisodeSummary;
    // The head before `steps` is whole: the summary is known although the record is not.
    expect(s.problem).toBeNull();
    expect(s.episodeIdx).toBe(1);
    const r = parseRecord(cut);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.why).toMatch(/cut short after \d+ bytes/);
    const tiny = summaryFromHead({ ...place, fileSize: 30 }, whole.slice(0, 30), true) as EpisodeSummary;
    expect(tiny).toMatchObject({ taskId: 'sim-train-41', episodeIdx: 1, reward: null });
    expect(tiny.problem).toMatch(/cut short/);
  });

  it('finds the key `steps` only at the top level, not inside strings or nested objects', () => {
    const text = '{"a": "\\"steps\\": [", "b": {"steps": 1}, "steps": [{"x": 1}]}';
    expect(headBeforeSteps(text)).toEqual({ a: '"steps": [', b: { steps: 1 } });
  });

  it('shows each step: the screenshot beside the record, the action, the click on the 0-1000 grid', () => {
    const f = group().find((x) => x.rel.endsWith('_ep0.json'))!;
    const record = JSON.parse(f.bytes.toString()) as Record<string, unknown>;
    const local = `/elsewhere/rollout/7/sim-train-41_ep0.json`;
    const views = stepViews(local, record);
    expect(views.length).toBe(record.n_steps);
    expect(views[0].shot).toMatch(/^\/elsewhere\/rollout\/7\/task_sim-train-41_.*_step_000\.png$/);
    const click = views.find((v) => v.actionKey === 'click')!;
    expect(click.click!.x).toBeGreaterThan(0);
    expect(click.click!.x).toBeLessThanOrEqual(1000);
    expect(views.at(-1)!.actionKey).toBe('answer');
    expect(verdicts(record.evaluation as string[])).toEqual([
      { criterion: 'Criterion A - Fact 1', verdict: 'SUCCESS' },
      { criterion: 'Criterion A - Fact 2', verdict: 'SUCCESS' },
    ]);
  });

  it('filters: answered but reward 0, timed out, blocked, stuck (3 unchanged screenshots in a row)', () => {
    const l = parseListing(listingOf(group()));
    const by = (f: Parameters<typeof matches>[1]) => l.episodes.filter((e) => matches(e, f, l.shotSizes));
    for (const e of by('answered-zero')) expect(e.evaluation !== null && e.reward === 0 && !e.isBlocked).toBe(true);
    for (const e of by('timed-out')) expect(e.evaluation).toBeNull();
    expect(by('answered-zero').length).toBeGreaterThan(0);
    expect(by('blocked').every((e) => e.isBlocked === true)).toBe(true);
    const stuck = by('stuck');
    expect(stuck.length).toBeGreaterThan(0);
    for (const e of stuck) expect(longestUnchangedRun(e, l.shotSizes)).toBeGreaterThanOrEqual(3);
    expect(by('all')).toHaveLength(8);
  });
});
