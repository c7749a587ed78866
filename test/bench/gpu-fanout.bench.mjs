// GPU fan-out benchmark: one polling round (ONE exec on the head, which ssh-es to every node in
// parallel) for 1, 4 and 8 nodes, the head being this machine (local transport) and every "node"
// a Host alias of one throwaway sshd on 127.0.0.2 (real ssh handshakes, a fake nvidia-smi on PATH
// through the setup line). Median and max of 5 rounds each. Figures are printed, never asserted.
// Every process started here is stopped by PID.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../dist/remote/index.js';
import { GpuPoller } from '../../dist/gpu/index.js';
import { descendants, freePort } from './bench-util.mjs';

const ADDR = '127.0.0.2';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, what, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = mkdtempSync(join(tmpdir(), 'awrl-gpu-bench-'));
let sshdPid = null;
try {
  mkdirSync('/run/sshd', { recursive: true });
  const port = await freePort(ADDR);
  for (const k of ['host', 'client']) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, k)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
  const cfg = join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [
      `Port ${port}`,
      `ListenAddress ${ADDR}`,
      `HostKey ${join(dir, 'host')}`,
      `PidFile ${join(dir, 'pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'MaxStartups 64',
      'SetEnv SHLVL=1',
    ].join('\n') + '\n',
  );
  const log = join(dir, 'sshd.log');
  const child = spawn('/usr/sbin/sshd', ['-D', '-f', cfg, '-E', log], { stdio: 'ignore' });
  sshdPid = child.pid;
  await until(() => {
    try {
      return readFileSync(log, 'utf8').includes('Server listening');
    } catch {
      return false;
    }
  }, 'sshd');

  const hostPub = readFileSync(join(dir, 'host.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  writeFileSync(join(dir, 'known_hosts'), `[${ADDR}]:${port} ${hostPub}\n`);
  const names = Array.from({ length: 8 }, (_, i) => `node${i + 1}`);
  writeFileSync(
    join(dir, 'nodes_ssh_config'),
    names
      .map((n) =>
        [
          `Host ${n}`,
          `  HostName ${ADDR}`,
          `  Port ${port}`,
          `  User ${userInfo().username}`,
          `  IdentityFile ${join(dir, 'client')}`,
          '  IdentitiesOnly yes',
          `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
          '  GlobalKnownHostsFile /dev/null',
          '  StrictHostKeyChecking yes',
        ].join('\n'),
      )
      .join('\n') + '\n',
  );
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'nvidia-smi'),
    `#!/bin/bash\nfor i in 0 1 2 3 4 5 6 7; do echo "$i, NVIDIA H100 80GB HBM3, 70000, 81559, 97"; done\n`,
    { mode: 0o755 },
  );

  const head = await openTransport('local');
  console.log(
    `one GPU polling round (one exec on the head, ssh to each node in parallel, 8 GPUs per node), ${(await import('node:os')).cpus().length} cores:`,
  );
  for (const n of [1, 4, 8]) {
    const poller = new GpuPoller(head, {
      nodes: names.slice(0, n),
      setup: `export PATH='${bin}':"$PATH"`,
      sshConfigFile: join(dir, 'nodes_ssh_config'),
      onSnapshot: () => {},
    });
    const times = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      const snaps = await poller.pollOnce();
      times.push(performance.now() - t0);
      const bad = snaps.filter((s) => s.error || s.gpus.length !== 8);
      if (bad.length)
        throw new Error(`round failed: ${bad.map((s) => s.error ?? `${s.node}: ${s.gpus.length} GPUs`).join('; ')}`);
    }
    console.log(
      `  ${String(n).padStart(2)} node(s): median ${median(times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (5 rounds)`,
    );
  }
  await head.close();
} finally {
  if (sshdPid)
    for (const p of [...descendants(sshdPid), sshdPid]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {}
    }
  rmSync(dir, { recursive: true, force: true });
}
