// An N-node Slurm cluster on one machine, for tests (measured facts: /work/shared/docs/multinode.md).
// Node K (nK, 127.0.0.(10+K)) is `unshare --uts --pid --fork --mount-proc --mount`: its own hostname,
// its own PID space (`ps` on a node shows only its processes; GPU holder PIDs are that node's), its
// own mount namespace (a hosts file over /etc/hosts, an ssh_config over /etc/ssh/ssh_config). Every
// node runs sshd on its own address and a slurmd with Gres=gpu:8; n1 also runs slurmctld; one munged
// serves all. An LD_PRELOAD shim (node-source-addr.c, built here with gcc) makes each node's loopback
// connections leave from its own address, which Slurm needs. Traffic stays on 127.0.0.0/8.
// Everything is stopped by PID: killNode() SIGKILLs a node's namespace init (the node fails), stop()
// ends every node, munged, and the temp dir.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NODE_INIT,
  gresConf,
  hostsFile,
  knownHosts,
  nodeAddr,
  nodeName,
  nodeNumbers,
  nodeSshConfig,
  slurmConf,
  sshdConfig,
  type ClusterLayout,
} from './cluster-conf.js';
import { descendants, freePort, killTree } from './sshd.js';
import { pidAlive, waitFor } from './wait.js';

export interface ClusterNode {
  name: string;
  addr: string;
  /** Host PID of the node's namespace init (its PID 1): SIGKILL = the node fails. */
  initPid: number;
  dir: string;
}

export interface ClusterOptions {
  nodes: number;
  gpusPerNode?: number;
  /** Directories put first on PATH in every node's ssh sessions (e.g. the simulator's bin/). */
  path?: string[];
}

export interface Cluster {
  dir: string;
  nodes: ClusterNode[];
  /** Client-side ssh_config (outside the nodes): the alias `headAlias` reaches n1; each nK too. */
  sshConfigFile: string;
  headAlias: string;
  identityFile: string;
  /** Environment for Slurm clients run by the test itself (sbatch, squeue, scontrol, sinfo). */
  env: NodeJS.ProcessEnv;
  partition: string;
  /** Runs `bash -c script` on a node over ssh from the test process; stdout. */
  onNode(name: string, script: string, timeoutMs?: number): string;
  /** SIGKILL of the node's namespace init: every process of the node dies at once. */
  killNode(name: string): Promise<void>;
  stop(): Promise<void>;
}

// A test that times out before its cleanup: every namespace and munged started here dies with the worker.
const live = new Set<number>();
process.once('exit', () => {
  for (const pid of live) for (const p of [...descendants(pid), pid]) safeKill(p, 'SIGKILL');
});

function safeKill(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* already gone */
  }
}

function uidGid(user: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`cluster harness: user '${user}' missing (apt-get install munge)`);
  const f = line.split(':');
  return { uid: Number(f[2]), gid: Number(f[3]) };
}

function tail(path: string, n = 1500): string {
  return existsSync(path) ? `--- ${path}\n${readFileSync(path, 'utf8').slice(-n)}` : `(no ${path})`;
}

function keygen(path: string, comment: string): string {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path], { stdio: 'ignore' });
  return readFileSync(`${path}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
}

/** The namespace init is unshare's only child (unshare --fork waits for it). */
function initOf(unsharePid: number): number | null {
  try {
    const kids = readFileSync(`/proc/${unsharePid}/task/${unsharePid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    return kids.length ? Number(kids[0]) : null;
  } catch {
    return null;
  }
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'awrl-cluster-'));
  chmodSync(dir, 0o755); // munged runs as user munge and must traverse it
  for (const sub of ['ctld', 'spool', 'run', 'log', 'dev', 'nodes']) mkdirSync(join(dir, sub));
  const gpusPerNode = opts.gpusPerNode ?? 8;
  const munge = uidGid('munge');
  const mungeDir = join(dir, 'munge');
  mkdirSync(mungeDir, { mode: 0o700 });
  const keyFile = join(mungeDir, 'munge.key');
  writeFileSync(keyFile, execFileSync('head', ['-c', '1024', '/dev/urandom']), { mode: 0o600 });
  chownSync(mungeDir, munge.uid, munge.gid);
  chownSync(keyFile, munge.uid, munge.gid);
  // A port free on every address at once (0.0.0.0), so each node can listen on it at its own.
  const [sshPort, ctldPort, slurmdPort] = [
    await freePort('0.0.0.0'),
    await freePort('0.0.0.0'),
    await freePort('0.0.0.0'),
  ];
  const layout: ClusterLayout = {
    dir,
    nodes: opts.nodes,
    sshPort,
    ctldPort,
    slurmdPort,
    mungeSocket: join(mungeDir, 'munge.socket'),
    gpusPerNode,
  };

  const shim = join(dir, 'node-source-addr.so');
  execFileSync('gcc', [
    '-shared',
    '-fPIC',
    '-O2',
    '-o',
    shim,
    new URL('./node-source-addr.c', import.meta.url).pathname,
    '-ldl',
  ]);
  for (let i = 0; i < gpusPerNode; i++) execFileSync('mknod', [join(dir, 'dev', `nvidia${i}`), 'c', '1', '3']);
  const identityFile = join(dir, 'client_ed25519');
  const clientKey = keygen(identityFile, 'awrl-cluster-client');
  const authorizedKeys = join(dir, 'authorized_keys');
  writeFileSync(authorizedKeys, clientKey + '\n');
  const hostKeys = nodeNumbers(opts.nodes).map((k) => {
    mkdirSync(join(dir, 'nodes', nodeName(k)));
    return keygen(join(dir, 'nodes', nodeName(k), 'host_ed25519'), `awrl-cluster-${nodeName(k)}`);
  });
  const known = join(dir, 'known_hosts');
  writeFileSync(known, knownHosts(layout, hostKeys));
  writeFileSync(join(dir, 'hosts'), hostsFile(layout));
  writeFileSync(join(dir, 'ssh_config'), nodeSshConfig(layout, identityFile, known));
  const conf = join(dir, 'slurm.conf');
  writeFileSync(conf, slurmConf(layout));
  writeFileSync(join(dir, 'gres.conf'), gresConf(layout, join(dir, 'dev')));
  writeFileSync(join(dir, 'node-init.sh'), NODE_INIT);
  const path = [
    ...(opts.path ?? []),
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
    '/bin',
  ].join(':');
  const headAlias = `awrl-cluster-head-${sshPort}`;
  const sshConfigFile = join(dir, 'client_ssh_config');
  writeFileSync(
    sshConfigFile,
    [
      `Host ${headAlias}`,
      `  HostName ${nodeAddr(1)}`,
      ...nodeNumbers(opts.nodes).flatMap((k) => [`Host ${nodeName(k)}`, `  HostName ${nodeAddr(k)}`]),
      'Host *',
      `  Port ${sshPort}`,
      '  User root',
      `  IdentityFile ${identityFile}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${known}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  BatchMode yes',
      '',
    ].join('\n'),
  );
  // The alias: its key is checked under [alias]:port, so add that line too.
  writeFileSync(known, readFileSync(known, 'utf8') + `[${headAlias}]:${sshPort} ${hostKeys[0]}\n`);
  const env = { ...process.env, SLURM_CONF: conf };
  const unshares: ChildProcess[] = [];
  const nodes: ClusterNode[] = [];
  let mungedPid = 0;

  const stop = async (): Promise<void> => {
    for (const n of nodes) if (pidAlive(n.initPid)) safeKill(n.initPid, 'SIGKILL');
    for (const u of unshares) if (u.pid) await killTree(u.pid).catch(() => undefined);
    for (const u of unshares) if (u.pid) live.delete(u.pid);
    if (mungedPid) {
      await killTree(mungedPid).catch(() => undefined);
      live.delete(mungedPid);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const describe = (): string =>
    [
      tail(join(dir, 'log', 'slurmctld.log')),
      ...nodes.map((n) => tail(join(dir, 'log', `slurmd-${n.name}.log`), 600)),
      ...nodes.map((n) => tail(join(n.dir, 'sshd.log'), 400)),
    ].join('\n');

  try {
    const munged = spawn(
      '/usr/sbin/munged',
      [
        '-F',
        `--socket=${layout.mungeSocket}`,
        `--key-file=${keyFile}`,
        `--log-file=${join(mungeDir, 'munged.log')}`,
        `--pid-file=${join(mungeDir, 'munged.pid')}`,
        `--seed-file=${join(mungeDir, 'munged.seed')}`,
        '--force',
      ],
      { stdio: 'ignore', uid: munge.uid, gid: munge.gid },
    );
    mungedPid = munged.pid!;
    live.add(mungedPid);
    await waitFor(() => existsSync(layout.mungeSocket), { timeoutMs: 10_000, what: 'the munged socket' });

    for (const k of nodeNumbers(opts.nodes)) {
      const name = nodeName(k);
      const ndir = join(dir, 'nodes', name);
      writeFileSync(
        join(ndir, 'sshd_config'),
        sshdConfig(layout, k, {
          hostKey: join(ndir, 'host_ed25519'),
          pidFile: join(ndir, 'sshd.pid'),
          authorizedKeys,
          path,
          preload: shim,
          slurmConf: conf,
        }),
      );
      mkdirSync('/run/sshd', { recursive: true });
      const u = spawn(
        'unshare',
        [
          '--uts',
          '--pid',
          '--fork',
          '--mount-proc',
          '--mount',
          '--propagation',
          'private',
          'bash',
          join(dir, 'node-init.sh'),
          name,
          dir,
          ndir,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'], env: { ...env, AWRL_CLUSTER_DIR: dir } },
      );
      let stderr = '';
      u.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
      unshares.push(u);
      live.add(u.pid!);
      const initPid = await waitFor(() => initOf(u.pid!), {
        timeoutMs: 10_000,
        what: `${name}'s namespace init (${stderr})`,
      });
      nodes.push({ name, addr: nodeAddr(k), initPid, dir: ndir });
    }
    for (const n of nodes) {
      await waitFor(() => readFileSync(join(n.dir, 'sshd.log'), 'utf8').includes('Server listening on'), {
        timeoutMs: 20_000,
        what: `${n.name}'s sshd\n${describe()}`,
      });
    }
    let last = '';
    await waitFor(
      () => {
        last = execFileSync('sinfo', ['-h', '-N', '-o', '%N %T'], { env, encoding: 'utf8', timeout: 10_000 }).trim();
        const idle = last.split('\n').filter((l) => / idle$/.test(l)).length;
        return idle === opts.nodes;
      },
      { timeoutMs: 60_000, intervalMs: 300, what: `${opts.nodes} idle nodes in sinfo` },
    ).catch((e: Error) => {
      throw new Error(`${e.message}\nsinfo: ${last}\n${describe()}`);
    });
  } catch (err) {
    await stop();
    throw err;
  }

  const onNode = (name: string, script: string, timeoutMs = 30_000): string =>
    execFileSync('ssh', ['-F', sshConfigFile, name, 'bash', '-c', shq(script)], {
      encoding: 'utf8',
      timeout: timeoutMs,
    });
  const killNode = async (name: string): Promise<void> => {
    const n = nodes.find((x) => x.name === name);
    if (!n) throw new Error(`cluster harness: no node ${name}`);
    safeKill(n.initPid, 'SIGKILL');
    await waitFor(() => !pidAlive(n.initPid), { timeoutMs: 10_000, what: `${name}'s init to die` });
  };
  return { dir, nodes, sshConfigFile, headAlias, identityFile, env, partition: 'debug', onNode, killNode, stop };
}

const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
