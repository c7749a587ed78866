// The text files of the one-machine multi-node cluster (test/harness/cluster.ts), as pure functions
// so the layout is readable in one place: node K is named nK and lives on 127.0.0.(10+K) (loopback
// addresses Linux answers without configuration; all traffic stays on 127.0.0.0/8).

export interface ClusterLayout {
  dir: string;
  nodes: number;
  /** One port for every node's sshd (each listens on its own address). */
  sshPort: number;
  ctldPort: number;
  slurmdPort: number;
  mungeSocket: string;
  gpusPerNode: number;
}

export const nodeName = (k: number): string => `n${k}`;
export const nodeAddr = (k: number): string => `127.0.0.${10 + k}`;
export const nodeNumbers = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** Bound over /etc/hosts in every node: the nodes find each other by name, as on a real cluster. */
export function hostsFile(l: ClusterLayout): string {
  return ['127.0.0.1 localhost', ...nodeNumbers(l.nodes).map((k) => `${nodeAddr(k)} ${nodeName(k)}`), ''].join('\n');
}

/** Bound over /etc/ssh/ssh_config in every node: `ssh n3` from any node works without a password. */
export function nodeSshConfig(l: ClusterLayout, identityFile: string, knownHosts: string): string {
  return [
    ...nodeNumbers(l.nodes).flatMap((k) => [`Host ${nodeName(k)}`, `  HostName ${nodeAddr(k)}`]),
    'Host *',
    `  Port ${l.sshPort}`,
    '  User root',
    `  IdentityFile ${identityFile}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${knownHosts}`,
    '  GlobalKnownHostsFile /dev/null',
    '  StrictHostKeyChecking yes',
    '  BatchMode yes',
    '',
  ].join('\n');
}

/** known_hosts with every node's host key, under its name and its address. */
export function knownHosts(l: ClusterLayout, hostKeys: readonly string[]): string {
  return (
    nodeNumbers(l.nodes)
      .map((k) => `[${nodeName(k)}]:${l.sshPort},[${nodeAddr(k)}]:${l.sshPort} ${hostKeys[k - 1]}`)
      .join('\n') + '\n'
  );
}

export interface NodeSshd {
  hostKey: string;
  pidFile: string;
  authorizedKeys: string;
  /** PATH for ssh sessions on the node (its fakes first). */
  path: string;
  preload: string;
  slurmConf: string;
}

export function sshdConfig(l: ClusterLayout, k: number, s: NodeSshd): string {
  return [
    `Port ${l.sshPort}`,
    `ListenAddress ${nodeAddr(k)}`,
    `HostKey ${s.hostKey}`,
    `PidFile ${s.pidFile}`,
    `AuthorizedKeysFile ${s.authorizedKeys}`,
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'Subsystem sftp internal-sftp',
    'LogLevel VERBOSE',
    'MaxStartups 100:30:200',
    // One line: sshd obeys the first SetEnv only. SHLVL=1 skips root's .bashrc (pyenv init, slow);
    // LD_PRELOAD binds the session's loopback connections to this node's address (node-source-addr.c).
    `SetEnv SHLVL=1 PATH=${s.path} LD_PRELOAD=${s.preload} SLURM_CONF=${s.slurmConf}`,
    '',
  ].join('\n');
}

export function slurmConf(l: ClusterLayout): string {
  const d = l.dir;
  const all = `n[1-${l.nodes}]`;
  return [
    'ClusterName=awrlmulti',
    `SlurmctldHost=${nodeName(1)}(${nodeAddr(1)})`,
    `SlurmctldPort=${l.ctldPort}`,
    `SlurmdPort=${l.slurmdPort}`,
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    'CredType=cred/munge',
    `AuthInfo=socket=${l.mungeSocket}`,
    // Without NoCtldInAddrAny slurmctld binds every address; without NoInAddrAny so does each slurmd.
    'CommunicationParameters=NoInAddrAny,NoCtldInAddrAny',
    `StateSaveLocation=${d}/ctld`,
    `SlurmdSpoolDir=${d}/spool/%n`,
    `SlurmctldPidFile=${d}/slurmctld.pid`,
    `SlurmdPidFile=${d}/run/slurmd-%n.pid`,
    `SlurmctldLogFile=${d}/log/slurmctld.log`,
    `SlurmdLogFile=${d}/log/slurmd-%n.log`,
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_CPU',
    'SchedulerType=sched/backfill',
    'GresTypes=gpu',
    'ReturnToService=2',
    'MpiDefault=none',
    // A killed node is DOWN after SlurmdTimeout; short, so the node-failure test does not wait 5 min.
    'SlurmdTimeout=10',
    'SlurmctldTimeout=10',
    'InactiveLimit=0',
    'KillWait=5',
    'MinJobAge=600',
    'OverTimeLimit=0',
    'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    ...(process.env.AWRL_SLURM_DEBUG === '1' ? ['SlurmctldDebug=debug2', 'SlurmdDebug=debug2'] : []),
    ...nodeNumbers(l.nodes).map(
      (k) =>
        `NodeName=${nodeName(k)} NodeAddr=${nodeAddr(k)} CPUs=2 RealMemory=1000 Gres=gpu:${l.gpusPerNode} State=UNKNOWN`,
    ),
    `PartitionName=debug Nodes=${all} Default=YES MaxTime=INFINITE State=UP`,
    '',
  ].join('\n');
}

/** slurmd refuses plain files as GPU devices: the harness makes character devices (mknod 1 3). */
export function gresConf(l: ClusterLayout, devDir: string): string {
  return ['AutoDetect=off', `NodeName=n[1-${l.nodes}] Name=gpu File=${devDir}/nvidia[0-${l.gpusPerNode - 1}]`, ''].join(
    '\n',
  );
}

/**
 * The namespace init of a node (PID 1 of its PID namespace, so a SIGKILL of it from outside is the
 * node failing: the kernel kills every process of the node). Args: NAME DIR NODE_DIR.
 */
export const NODE_INIT = String.raw`
set -u
name=$1; D=$2; N=$3
hostname "$name"
mount --bind "$D/hosts" /etc/hosts
mount --bind "$D/ssh_config" /etc/ssh/ssh_config
export LD_PRELOAD="$D/node-source-addr.so" SLURM_CONF="$D/slurm.conf" AWRL_CLUSTER_NODE="$name"
/usr/sbin/sshd -D -f "$N/sshd_config" -E "$N/sshd.log" &
if [ "$name" = n1 ]; then /usr/sbin/slurmctld -D -i -f "$D/slurm.conf" & fi
/usr/sbin/slurmd -D -f "$D/slurm.conf" -N "$name" &
echo ready > "$N/init.ready"
# PID 1 of the namespace: reaps the node's orphans (bash reaps any child on SIGCHLD) until killed.
trap 'exit 0' TERM
while :; do sleep 5 & wait $!; done
`;
