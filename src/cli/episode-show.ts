// `episodes RUN --show TASK/EP [--step N]`: an episode at a terminal, step by step: the screenshot
// (with the click marker), the action, the page, the model's response folded, then the evaluator.
import {
  fold,
  parseRecord,
  stepViews,
  verdicts,
  type DumpListing,
  type EpisodeSummary,
  type StepView,
} from '../episodes/index.js';
import { renderShot } from '../images/render.js';
import type { ImageChoice } from '../images/detect.js';
import type { Transport } from '../remote/transport.js';
import { readDumpRecord } from '../runs/dump-list.js';
import { ShotCache, type Shot } from '../runs/dump-shots.js';
import { CliError, EXIT } from './errors.js';

/** The episode TASK/EP names (the newest version holding it unless --version chose one). */
export function findEpisode(l: DumpListing, spec: string): { episode: EpisodeSummary; others: number[] } {
  const m = /^(.+)\/(\d+)$/.exec(spec);
  if (!m) throw new CliError(`--show/--pin take TASK/EP (a task id and an episode index), not '${spec}'`, EXIT.usage);
  const hits = l.episodes
    .filter((e) => e.taskId === m[1] && e.episodeIdx === Number(m[2]))
    .sort((a, b) => b.version - a.version);
  if (!hits.length)
    throw new CliError(`no episode ${spec} among the ${l.episodes.length} dumped under ${l.logDir}`, EXIT.usage, {
      hint: 'list them with: awrl-tui episodes RUN --target T',
    });
  return { episode: hits[0], others: hits.slice(1).map((e) => e.version) };
}

export interface ShowInput {
  transport: Transport;
  listing: DumpListing;
  spec: string;
  step: number | null;
  images: ImageChoice;
  columns: number;
  write: (s: string) => void;
}

let nextImageId = ((process.pid * 7919) & 0xfff) << 8;

function stepBlock(v: StepView, n: number, shot: Shot | undefined, o: ShowInput): string[] {
  const click = v.click ? ` at (${v.click.x}, ${v.click.y}) on the 0-1000 grid` : '';
  const out = [`── step ${v.idx} of ${n}: ${v.actionKey ?? 'no action'}${click}`];
  if (v.shot === null) out.push('[screenshot: the step names none]');
  else if (o.images.mode === 'none')
    out.push(`[screenshot ${v.shot.slice(v.shot.lastIndexOf('/') + 1)}: not drawn (${o.images.why})]`);
  else {
    const img = renderShot(shot?.ok ? shot.bytes : null, {
      mode: o.images.mode,
      cols: Math.min(o.columns, 100),
      rows: o.step === null ? 14 : 24,
      click: v.click,
      id: (nextImageId = (nextImageId + 1) & 0xffffff) || 1,
      tmux: o.images.tmux,
    });
    const rows = shot && !shot.ok ? [`\x1b[2m[screenshot: ${shot.why}]\x1b[22m`] : img.rows;
    out.push(img.prelude + rows[0], ...rows.slice(1));
    out.push(`   ${v.shot.slice(v.shot.lastIndexOf('/') + 1)}`);
  }
  out.push(`action: ${v.actionString ?? '(none recorded)'}${v.argument ? `  [${v.argument}]` : ''}`);
  const page = [v.title, v.url].filter(Boolean).join(' — ');
  const vp = v.viewport ? `${v.viewport.width}×${v.viewport.height}` : 'size unknown';
  out.push(`page: ${page || `no title or URL recorded (viewport ${vp})`}`);
  if (v.judgment) out.push(`judge: ${v.judgment}`);
  const width = Math.max(40, Math.min(o.columns, 120) - 2);
  out.push('response:', ...fold(v.response ?? '(none)', width, o.step === null ? 4 : 40).map((l) => `  ${l}`));
  return out;
}

export async function showEpisode(o: ShowInput): Promise<number> {
  const { episode: e, others } = findEpisode(o.listing, o.spec);
  const r = parseRecord(await readDumpRecord(o.transport, e.file));
  const head = [
    `episode ${e.taskId}/${e.episodeIdx}, ${e.kind === 'train' ? 'version' : 'model step'} ${e.version}: ${e.taskInfo.taskName ?? '?'}`,
    `  ${e.taskInfo.website ?? '?'}  difficulty ${e.taskInfo.difficulty ?? '?'}  reward ${e.reward === null ? '?' : e.reward.toFixed(2)}  ${e.nSteps ?? '?'} steps  timed out ${e.timedOut ?? '?'}  blocked ${e.isBlocked ?? '?'}  versions ${e.headVersion ?? '?'}–${e.tailVersion ?? '?'}`,
  ];
  if (others.length) head.push(`  (also in versions ${others.join(', ')}: choose with --version V)`);
  o.write(head.join('\n') + '\n');
  if (!r.ok) {
    o.write(`${e.file}: ${r.why}\n`);
    return EXIT.failed;
  }
  const views = stepViews(e.file, r.record);
  const chosen = o.step === null ? views : views.filter((v) => v.idx === o.step);
  if (o.step !== null && !chosen.length)
    throw new CliError(`episode ${o.spec} has no step ${o.step} (steps 0–${views.length - 1})`, EXIT.usage);
  const paths = chosen.map((v) => v.shot).filter((p): p is string => p !== null);
  const shots =
    o.images.mode === 'none'
      ? new Map<string, Shot>()
      : await new ShotCache(o.transport).get(paths, o.listing.shotSizes);
  for (const v of chosen)
    o.write(stepBlock(v, views.length, v.shot ? shots.get(v.shot) : undefined, o).join('\n') + '\n');
  const vs = verdicts(e.evaluation);
  o.write(
    vs.length
      ? `evaluator: ${vs.map((v) => `${v.criterion}: ${v.verdict}`).join('; ')}\n`
      : `evaluator: did not run (${e.timedOut ? 'timed out' : 'no answer'})\n`,
  );
  return EXIT.ok;
}
