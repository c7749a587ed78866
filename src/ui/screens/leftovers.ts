// After a run ended: what is still running that belongs to it (tagged with AWRL_RUN_ID) or holds
// GPU memory on its target, with PID and command. Only tagged processes are offered for stopping;
// an untagged GPU holder is listed for the user to judge and is never signalled from here.
import { fit, wrap } from '../format.js';
import { titleLine, type Line } from '../lines.js';
import type { LeftoverPhase, LeftoverProcess } from '../../session/types.js';
import { otherRunWords } from '../../preflight/other-runs.js';

function processLine(l: LeftoverProcess, width: number): Line {
  const why = l.tagged
    ? 'tagged with this run'
    : l.otherRunId === '?'
      ? `owned by ${l.user || 'another user'}`
      : l.otherRunId
        ? `${otherRunWords(l.otherRunId, l.otherRun)}: not stopped from here`
        : 'untagged: not stopped from here';
  const gpu = l.gpuMiB !== null ? `  ${l.gpuMiB} MiB GPU` : '';
  const head = `${l.node ? `${l.node}  ` : ''}PID ${String(l.pid).padStart(7)}  `;
  const tail = `${gpu}  [${why}]`;
  return [
    { t: head, bold: true, c: l.tagged ? 'warn' : undefined },
    { t: fit(l.cmd.trim() || '?', Math.max(8, width - head.length - tail.length)) },
    { t: tail, c: l.tagged ? 'warn' : 'dim' },
  ];
}

export function leftoverLines(p: LeftoverPhase | undefined, runId: string, width: number): Line[] {
  const out: Line[] = [
    titleLine(`Leftovers of ${runId}`, width, 'processes still tagged with the run or holding GPU memory'),
  ];
  if (!p || p.phase === 'idle' || p.phase === 'checking' || p.runId !== runId) {
    out.push([{ t: 'checking the target…', c: 'warn' }]);
    out.push([{ t: 'n', bold: true }, { t: ' close' }]);
    return out;
  }
  if (p.phase === 'failed') {
    for (const t of wrap(`the check failed: ${p.message}`, width, 4)) out.push([{ t, c: 'bad' }]);
    out.push([{ t: 'any key closes', c: 'dim' }]);
    return out;
  }
  if (p.phase === 'stopped') {
    out.push([
      { t: `stopped ${p.stopped.length} tagged process${p.stopped.length === 1 ? '' : 'es'}`, c: 'good', bold: true },
    ]);
    for (const l of p.stopped) out.push(processLine(l, width));
    out.push([
      {
        t: p.remaining.length ? `still there (${p.remaining.length}):` : 'nothing of this run is left',
        c: p.remaining.length ? 'warn' : 'good',
      },
    ]);
    for (const l of p.remaining) out.push(processLine(l, width));
    out.push([{ t: 'any key closes', c: 'dim' }]);
    return out;
  }
  const list = p.list;
  const tagged = list.filter((l) => l.tagged).length;
  const unchecked = p.unchecked ?? [];
  for (const u of unchecked) for (const t of wrap(`not checked: ${u}`, width, 2)) out.push([{ t, c: 'warn' }]);
  if (!list.length && unchecked.length)
    out.push([{ t: 'nothing found where it could be checked (not an all-clear)', c: 'warn' }]);
  else if (!list.length)
    out.push([{ t: 'nothing left: no process carries the run tag or holds GPU memory', c: 'good' }]);
  for (const l of list) out.push(processLine(l, width));
  if (p.phase === 'stopping')
    out.push([{ t: `stopping ${tagged} tagged process${tagged === 1 ? '' : 'es'}…`, c: 'warn', bold: true }]);
  else if (tagged > 0) {
    const procs = `${tagged} process${tagged === 1 ? '' : 'es'}`;
    const long = `Stop the ${procs} tagged with this run (SIGTERM, then SIGKILL)? `;
    // The y/n must stay on screen: the shorter question when the long one would push it off.
    out.push([
      { t: long.length + 3 <= width ? long : `Stop the ${procs} tagged with this run? `, c: 'warn', bold: true },
      { t: 'y', bold: true, c: 'good' },
      { t: '/' },
      { t: 'n', bold: true, c: 'bad' },
    ]);
    if (tagged < list.length)
      out.push([{ t: 'untagged processes are only listed: they are never stopped from here', c: 'dim' }]);
  } else
    out.push([
      {
        t: list.length
          ? "none of these carries this run's tag: nothing to stop from here · any key closes"
          : 'any key closes',
        c: 'dim',
      },
    ]);
  return out;
}
