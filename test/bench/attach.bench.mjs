// `npm run bench -- attach`: attaching the cockpit to a long log (issue #20), side by side with
// `ssh bench cat LOG > /dev/null` (OpenSSH) through a throwaway sshd, in one run:
//  - the target-side filters alone (awk, as before; the grep pattern list; each then gzip -1)
//  - time until the dashboard's view shows the last step, and until its whole history is read,
//    over ssh and locally; bytes sent; peak RSS of the attaching process
//  - a second attach after the log grew (the local cache: only the new part is filtered)
//  - the RSS of a dashboard that followed the log from its start (the reference, local)
//  - 5 GB: peak RSS over ssh and locally (skipped, with the reason, below 15 GB free)
// Logs are generated (test/bench/areal-log.mjs), then deleted. Figures are printed, never asserted.
// AWRL_BENCH_ATTACH_MB (default 1100), AWRL_BENCH_REPEAT (default 3), AWRL_BENCH_5GB=0 to skip.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateArealLog } from './areal-log.mjs';
import { startBenchSshd } from './bench-sshd.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const MB = Number(process.env.AWRL_BENCH_ATTACH_MB ?? 1100);
const REPEAT = Math.max(1, Number(process.env.AWRL_BENCH_REPEAT ?? 3));
const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-attach-'));
const cacheHome = join(dir, 'cache');
const say = (s) => process.stdout.write(`${s}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[(xs.length - 1) >> 1];
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Wall and CPU seconds of a shell line, its stdout's size (bytes), via /usr/bin/time. */
function timed(line) {
  const r = spawnSync('/usr/bin/time', ['-f', '@@time %e %U %S', 'bash', '-c', `${line} | wc -c`], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  const m = /@@time ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
  if (!m || r.status !== 0) throw new Error(`${line} failed: ${r.stderr}`);
  return { s: Number(m[1]), cpu: Number(m[2]) + Number(m[3]), bytes: Number(r.stdout.trim()) };
}

/** The node flags of the launcher's #! line (bin/awrl-tui.js): the child runs as the user's
 *  process does (`node attach-child.mjs` alone would measure another V8 configuration). */
const LAUNCHER_FLAGS = (() => {
  const words = readFileSync(join(here, '../../bin/awrl-tui.js'), 'utf8').split('\n')[0].split(/\s+/);
  return words.slice(words.indexOf('node') + 1);
})();

/** The harness sshd's host alias (in its ssh_config), once started. */
let sshHost = 'bench';

function attach(mode, log, lastStep, sshConfig, extra = [], cache = cacheHome) {
  const r = spawnSync(
    process.execPath,
    [...LAUNCHER_FLAGS, join(here, 'attach-child.mjs'), mode, log, String(lastStep), sshConfig, ...extra],
    {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production', XDG_CACHE_HOME: cache, AWRL_BENCH_SSH_HOST: sshHost },
      maxBuffer: 1 << 24,
    },
  );
  const line = (r.stdout ?? '').trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`attach (${mode}) failed: ${r.stderr}`);
  }
}

const sentOf = (note) => Number(/with ([\d.]+) MiB sent/.exec(note ?? '')?.[1] ?? NaN) * 1048576;
const s1 = (ms) => (ms === null ? 'never' : `${(ms / 1000).toFixed(2)} s`);

async function oneSize(mb, sshConfig, full) {
  const log = join(dir, `attach-${mb}mb.log`);
  say(`generating a ${mb} MiB AReaL log ...`);
  const lastStep = await generateArealLog(log, mb);
  const size = statSync(log).size;
  const gb = (size / 1e9).toFixed(2);
  say(`log: ${gb} GB, ${lastStep} steps; load average ${load()}`);
  spawnSync('cat', [log], { stdio: 'ignore' }); // the page cache, as for a log being written
  const sshCat = [];
  const ssh = [];
  const local = [];
  for (let i = 0; i < (full ? REPEAT : 1); i++) {
    sshCat.push(timed(`ssh -F ${sshConfig} ${sshHost} cat ${log}`));
    rmSync(cacheHome, { recursive: true, force: true });
    ssh.push(attach('ssh', log, lastStep, sshConfig));
    rmSync(cacheHome, { recursive: true, force: true });
    local.push(attach('local', log, lastStep, sshConfig));
  }
  const cat = median(sshCat.map((r) => r.s));
  say(
    `ssh bench cat LOG > /dev/null (OpenSSH): ${cat.toFixed(2)} s median (${sshCat.map((r) => r.s.toFixed(2)).join(' ')})`,
  );
  for (const [name, rs] of [
    ['ssh', ssh],
    ['local', local],
  ]) {
    const shown = median(rs.map((r) => r.shownMs));
    const done = median(rs.map((r) => r.doneMs));
    const first = median(rs.map((r) => r.firstViewMs));
    const sent = median(rs.map((r) => sentOf(r.note)));
    say(
      `attach ${name.padEnd(5)}: last step shown ${s1(shown)} (ratio to ssh cat ${(shown / 1000 / cat).toFixed(2)}), ` +
        `first figures ${s1(first)}, history read ${s1(done)} (ratio ${(done / 1000 / cat).toFixed(2)}), ` +
        `sent ${(sent / 1e6).toFixed(1)} MB = ${((100 * sent) / size).toFixed(2)} % of the log; ` +
        `peak RSS ${Math.max(...rs.map((r) => r.peakMB)).toFixed(0)} MB, ${median(rs.map((r) => r.settledMB)).toFixed(0)} MB after ` +
        `(V8 heap ≤ ${Math.max(...rs.map((r) => r.heapMB)).toFixed(0)} MB, external ≤ ${Math.max(...rs.map((r) => r.externalMB)).toFixed(0)} MB)`,
    );
  }
  say(
    `  (history read, each run: ssh ${ssh.map((r) => s1(r.doneMs)).join(' ')}; local ${local.map((r) => s1(r.doneMs)).join(' ')})`,
  );
  say(`  note: ${ssh[0].note}`);
  if (full) {
    // The log grows (~4 MB of new steps): the second attach filters only those.
    attach('ssh', log, lastStep, sshConfig);
    const more = await generateArealLog(log, 4, { afterStep: lastStep });
    const again = attach('ssh', log, more, sshConfig);
    say(
      `second attach (ssh, cache hit, ${((statSync(log).size - size) / 1e6).toFixed(1)} MB new): history read ${s1(again.doneMs)}, ` +
        `last step shown ${s1(again.shownMs)}, sent ${(sentOf(again.note) / 1e6).toFixed(2)} MB; note: ${again.note}`,
    );
    const ref = attach('local', log, more, sshConfig, ['from-start']);
    say(
      `reference: a dashboard following the log from its start (local): peak RSS ${ref.peakMB.toFixed(0)} MB, ${ref.settledMB.toFixed(0)} MB after ` +
        `(V8 heap ≤ ${ref.heapMB.toFixed(0)} MB, external ≤ ${ref.externalMB.toFixed(0)} MB; ${s1(ref.shownMs)} to read it)`,
    );
    filters(log, statSync(log).size);
  }
  rmSync(log, { force: true });
}

function filters(log, size) {
  // The same commands the scripts run (backfill-filter.ts), on the same host, page cache warm.
  const keys = "'rollout/reward|timeperf/|staleness/gap/offpolicy_max|ppo_actor/n_tokens'";
  const awk = `LC_ALL=C awk -v keys=${keys} 'BEGIN{n=split(keys,K,"|")} {c=substr($0,1,3)} c=="\\342\\224\\234"{next} c=="\\342\\224\\202"{for(i=1;i<=n;i++) if(index($0,K[i])){print; next}; next} {print}'`;
  const grep = `LC_ALL=C grep -a -e '^$' -e $'^[^\\342]' -e $'^\\342[^\\224]' -e $'^\\342\\224[^\\202\\234]' -e $'^\\342$' -e $'^\\342\\224$' -e 'rollout/reward' -e 'timeperf/' -e 'staleness/gap/offpolicy_max' -e 'ppo_actor/n_tokens'`;
  const dd = `dd if=${log} bs=1M count=${size} iflag=count_bytes status=none`;
  for (const [name, line] of [
    ['awk', `${dd} | ${awk}`],
    ['awk | gzip -1', `${dd} | ${awk} | gzip -1`],
    ['grep', `${dd} | ${grep}`],
    ['grep | gzip -1', `${dd} | ${grep} | gzip -1`],
    ['head -c | grep | gzip -1', `head -c ${size} ${log} | ${grep} | gzip -1`],
  ]) {
    const r = timed(line);
    say(
      `filter ${name.padEnd(26)} ${r.s.toFixed(2)} s wall, ${r.cpu.toFixed(2)} s cpu, ${(r.bytes / 1e6).toFixed(1)} MB out (${((100 * r.bytes) / size).toFixed(2)} %)`,
    );
  }
}

let sshd;
try {
  sshd = await startBenchSshd();
  sshHost = sshd.alias;
  await oneSize(MB, sshd.sshConfigFile, true);
  const free = Number(spawnSync('df', ['-B1', '--output=avail', tmpdir()], { encoding: 'utf8' }).stdout.split('\n')[1]);
  if (process.env.AWRL_BENCH_5GB === '0') say('5 GB: skipped (AWRL_BENCH_5GB=0)');
  else if (!(free >= 15e9)) say(`5 GB: skipped: ${(free / 1e9).toFixed(1)} GB free in ${tmpdir()} (15 GB wanted)`);
  else await oneSize(5 * 1024, sshd.sshConfigFile, false);
} finally {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
}
