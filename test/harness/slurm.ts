// A real one-node Slurm cluster (munged + slurmctld + slurmd from Debian) in a temp dir, for tests.
// Nothing is assumed to run already; everything is stopped by PID. Clients reach it through
// SLURM_CONF (exported in `env` and `setupLine`), so the system's /etc/slurm is never touched.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  mkdtempSync,
  writeFileSync,
  mkdirSync,
  chmodSync,
  chownSync,
  readFileSync,
  readdirSync,
  rmSync,
  existsSync,
} from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { freePort } from './sshd.js';

export interface SlurmCluster {
  dir: string;
  conf: string;
  /** Environment for local Slurm clients (sbatch, squeue, scontrol). */
  env: NodeJS.ProcessEnv;
  /** A shell line that makes Slurm clients on this host use the cluster (for a target's setup line). */
  setupLine: string;
  partition: string;
  stop(): Promise<void>;
}

async function pollUntil(what: string, check: () => boolean, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`slurm harness: timed out waiting for ${what}\n${describe()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function uidGid(user: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`slurm harness: user '${user}' missing (apt-get install munge)`);
  const f = line.split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

function tail(path: string): string {
  return existsSync(path) ? `--- ${path}\n${readFileSync(path, 'utf8').slice(-2000)}` : `(no ${path})`;
}

export async function startSlurm(): Promise<SlurmCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-slurm-'));
  chmodSync(dir, 0o755); // munged runs as user munge and must traverse it
  const host = hostname().split('.')[0];
  const munge = uidGid('munge');
  const mungeDir = join(dir, 'munge');
  mkdirSync(mungeDir, { mode: 0o700 });
  const keyFile = join(mungeDir, 'munge.key');
  writeFileSync(keyFile, execFileSync('head', ['-c', '1024', '/dev/urandom']), { mode: 0o600 });
  chownSync(mungeDir, munge.uid, munge.gid);
  chownSync(keyFile, munge.uid, munge.gid);
  const socket = join(mungeDir, 'munge.socket');
  for (const sub of ['ctld', 'spool', 'log']) mkdirSync(join(dir, sub));

  const children: ChildProcess[] = [];
  // slurmd's job steps (slurmstepd) are not its children: they inherit this marker instead, so
  // stop() can find and end them (and the jobs under them) by PID.
  const marker = `AWRL_SLURM_HARNESS=${dir}`;
  const startDaemon = (cmd: string, args: string[], extra: { uid?: number; gid?: number } = {}) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, AWRL_SLURM_HARNESS: dir },
      ...extra,
    });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
    child.on('exit', (code) => {
      if (code !== null && code !== 0) process.stderr.write(`slurm harness: ${cmd} exited ${code}: ${stderr}\n`);
    });
    children.push(child);
    return child;
  };

  const stop = async () => {
    if (existsSync(join(dir, 'slurm.conf'))) {
      // Cancel every job first, so that no slurmstepd outlives the cluster.
      const env = { ...process.env, SLURM_CONF: join(dir, 'slurm.conf') };
      try {
        execFileSync('scancel', ['--full', `--user=${process.getuid?.() ?? 0}`], {
          env,
          stdio: 'ignore',
          timeout: 10_000,
        });
        await pollUntil(
          'jobs to leave the queue',
          () => {
            try {
              return execFileSync('squeue', ['-h'], { env, encoding: 'utf8', timeout: 10_000 }).trim() === '';
            } catch {
              return true;
            }
          },
          20_000,
          () => '',
        ).catch(() => undefined);
      } catch {
        /* controller already gone: the sweep below still ends the steps */
      }
    }
    for (const c of children.reverse()) {
      if (c.exitCode === null && c.signalCode === null && c.pid) {
        const gone = new Promise((r) => c.once('exit', r));
        try {
          process.kill(c.pid, 'SIGTERM');
        } catch {
          /* already gone */
        }
        const t = setTimeout(() => c.pid && safeKill(c.pid, 'SIGKILL'), 5000);
        await gone;
        clearTimeout(t);
      }
    }
    const leftovers = markedProcesses(marker);
    for (const pid of leftovers.flatMap((p) => [...descendantsOf(p), p])) safeKill(pid, 'SIGKILL');
    await pollUntil(
      'job steps to exit',
      () => markedProcesses(marker).length === 0,
      10_000,
      () => `still: ${markedProcesses(marker).join(' ')}`,
    );
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    startDaemon(
      '/usr/sbin/munged',
      [
        '-F',
        `--socket=${socket}`,
        `--key-file=${keyFile}`,
        `--log-file=${join(mungeDir, 'munged.log')}`,
        `--pid-file=${join(mungeDir, 'munged.pid')}`,
        `--seed-file=${join(mungeDir, 'munged.seed')}`,
        '--force',
      ],
      munge,
    );
    await pollUntil(
      'munged socket',
      () => existsSync(socket),
      10_000,
      () => tail(join(mungeDir, 'munged.log')),
    );

    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    const conf = join(dir, 'slurm.conf');
    writeFileSync(
      conf,
      [
        'ClusterName=awrltest',
        `SlurmctldHost=${host}(127.0.0.1)`,
        `SlurmctldPort=${ctldPort}`,
        `SlurmdPort=${slurmdPort}`,
        'SlurmUser=root',
        'SlurmdUser=root',
        'AuthType=auth/munge',
        'CredType=cred/munge',
        `AuthInfo=socket=${socket}`,
        `StateSaveLocation=${join(dir, 'ctld')}`,
        `SlurmdSpoolDir=${join(dir, 'spool')}`,
        `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
        `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
        `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
        `SlurmdLogFile=${join(dir, 'log', 'slurmd.log')}`,
        'ProctrackType=proctrack/linuxproc',
        'TaskPlugin=task/none',
        'SelectType=select/cons_tres',
        'SelectTypeParameters=CR_CPU',
        'SchedulerType=sched/backfill',
        'ReturnToService=2',
        'MpiDefault=none',
        // Time limits are checked on this period; keep the one-minute TIMEOUT test short.
        'OverTimeLimit=0',
        'KillWait=5',
        'MinJobAge=600',
        'JobAcctGatherType=jobacct_gather/none',
        // AWRL_SLURM_DEBUG=1: the daemons log at debug level (to read when a test that drives Slurm fails).
        ...(process.env.AWRL_SLURM_DEBUG === '1' ? ['SlurmctldDebug=debug2', 'SlurmdDebug=debug2'] : []),
        'AccountingStorageType=accounting_storage/none',
        `NodeName=${host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN`,
        `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
        '',
      ].join('\n'),
    );
    const env = { ...process.env, SLURM_CONF: conf };
    startDaemon('/usr/sbin/slurmctld', ['-D', '-i', '-f', conf]);
    startDaemon('/usr/sbin/slurmd', ['-D', '-f', conf, '-N', host]);
    let lastSinfo = '';
    await pollUntil(
      'the node to be idle in sinfo',
      () => {
        try {
          lastSinfo = execFileSync('sinfo', ['-h', '-o', '%T'], {
            env,
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
          }).trim();
        } catch (e) {
          lastSinfo = String(e);
        }
        return lastSinfo === 'idle';
      },
      30_000,
      () => `sinfo: ${lastSinfo}\n${tail(join(dir, 'log', 'slurmctld.log'))}\n${tail(join(dir, 'log', 'slurmd.log'))}`,
    );
    return { dir, conf, env, setupLine: `export SLURM_CONF='${conf}'`, partition: 'debug', stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function procPids(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

/** Live (non-zombie) processes whose environment holds `marker` exactly. */
function markedProcesses(marker: string): number[] {
  return procPids().filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') return false;
      return readFileSync(`/proc/${pid}/environ`).toString('latin1').split('\0').includes(marker);
    } catch {
      return false;
    }
  });
}

function descendantsOf(root: number): number[] {
  const kids = new Map<number, number[]>();
  for (const pid of procPids()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), pid]);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => (kids.get(p) ?? []).forEach((c) => (walk(c), out.push(c)));
  walk(root);
  return out;
}

function safeKill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

/**
 * `scontrol requeue JOB`, then a way to let the requeued job start now rather than at the BeginTime
 * Slurm gives it (CredExpire, about two minutes ahead). Resolves only once the wall-clock second of
 * the requeue has passed: at the requeue slurmd revokes the job's launch credential with a
 * one-second timestamp, and refuses any credential created in that same second ("Job 2 already
 * killed, do not launch batch job", slurmctld: "Killing non-startable batch JobId=2: Job credential
 * revoked"); the job then ends FAILED without its batch script ever running again. Slurm's own
 * BeginTime delay avoids that; a test that skips the delay must not start it in that second.
 * `startNow` may be called again while the job waits (a loaded slurmctld may hold it after an update).
 */
export async function requeueJob(cluster: SlurmCluster, jobId: string): Promise<{ startNow(): void }> {
  execFileSync('scontrol', ['requeue', jobId], { env: cluster.env, stdio: 'ignore' });
  // The revocation is stamped before `scontrol requeue` returns: no later than this second.
  const requeuedSecond = Math.floor(Date.now() / 1000);
  await pollUntil(
    'the second of the requeue to pass',
    () => Math.floor(Date.now() / 1000) > requeuedSecond,
    5000,
    () => '',
  );
  const startNow = () => {
    for (const args of [
      ['update', `JobId=${jobId}`, 'StartTime=now'],
      ['release', jobId],
    ]) {
      try {
        execFileSync('scontrol', args, { env: cluster.env, stdio: 'ignore' });
      } catch {
        /* not pending or not held (any more): nothing to do */
      }
    }
  };
  return { startNow };
}
