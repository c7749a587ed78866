// Transport benchmark (ssh over loopback to a throwaway sshd this script starts, and local):
//  - latency from a line appended to a followed file to its delivery (p50/p95 over 1,000 lines)
//  - follow throughput on a fast-growing file (MB/s)
//  - time from a connection reset (RST through a TCP proxy) to resumed delivery
// Figures are printed, never asserted. Every process started here is stopped by PID.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, appendFileSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { createServer, createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { openTransport } from '../../dist/remote/index.js';
import { descendants, freePort } from './bench-util.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, what, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

async function startSshd(dir) {
  mkdirSync('/run/sshd', { recursive: true });
  const port = await freePort();
  for (const k of ['host', 'client']) execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, k)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
  const cfg = join(dir, 'sshd_config');
  writeFileSync(
    cfg,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host')}`,
      `PidFile ${join(dir, 'pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'SetEnv SHLVL=1',
    ].join('\n') + '\n',
  );
  const log = join(dir, 'sshd.log');
  const child = spawn('/usr/sbin/sshd', ['-D', '-f', cfg, '-E', log], { stdio: 'ignore' });
  await until(() => {
    try {
      return readFileSync(log, 'utf8').includes('Server listening');
    } catch {
      return false;
    }
  }, 'sshd');
  return {
    port,
    pid: child.pid,
    hostPub: readFileSync(join(dir, 'host.pub'), 'utf8').split(' ').slice(0, 2).join(' '),
  };
}

function startProxy(targetPort) {
  const pairs = new Set();
  const srv = createServer((c) => {
    const u = createConnection({ host: '127.0.0.1', port: targetPort });
    const pair = { c, u };
    pairs.add(pair);
    c.pipe(u);
    u.pipe(c);
    const end = () => {
      pairs.delete(pair);
      c.destroy();
      u.destroy();
    };
    for (const s of [c, u]) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  return new Promise((resolve) =>
    srv.listen(0, '127.0.0.1', () =>
      resolve({
        port: srv.address().port,
        reset: () => {
          for (const p of [...pairs]) {
            p.c.resetAndDestroy();
            p.u.resetAndDestroy();
            pairs.delete(p);
          }
        },
        stop: () => {
          for (const p of [...pairs]) {
            p.c.destroy();
            p.u.destroy();
          }
          srv.close();
        },
      }),
    ),
  );
}

async function latency(t, dir, label) {
  const p = join(dir, `lat-${label}.log`);
  writeFileSync(p, '');
  const sent = new Map();
  const lat = [];
  let buf = '';
  const h = t.follow(p, 0, (e) => {
    if (e.type !== 'data') return;
    const now = performance.now();
    buf += e.bytes.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const i = Number(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      lat.push(now - sent.get(i));
    }
  });
  appendFileSync(p, '');
  await sleep(500); // let the follower start before timing
  for (let i = 0; i < 1000; i++) {
    sent.set(i, performance.now());
    appendFileSync(p, `${i}\n`);
    await sleep(5);
  }
  await until(() => lat.length === 1000, 'all 1,000 lines');
  h.close();
  console.log(
    `${label.padEnd(28)} latency over 1,000 lines: p50 ${pct(lat, 50).toFixed(1)} ms, p95 ${pct(lat, 95).toFixed(1)} ms, max ${Math.max(...lat).toFixed(1)} ms`,
  );
}

async function throughput(t, dir, label) {
  const p = join(dir, `tp-${label}.log`);
  writeFileSync(p, '');
  const total = 64 << 20;
  let got = 0;
  const h = t.follow(p, 0, (e) => {
    if (e.type === 'data') got += e.bytes.length;
  });
  await sleep(500);
  const chunk = Buffer.alloc(1 << 20, 'x\n'.repeat(512));
  const t0 = performance.now();
  for (let w = 0; w < total; w += chunk.length) {
    appendFileSync(p, chunk);
    await sleep(0);
  }
  await until(() => got === total, 'all bytes', 120_000);
  const s = (performance.now() - t0) / 1000;
  h.close();
  console.log(
    `${label.padEnd(28)} follow throughput: ${(total / (1 << 20) / s).toFixed(1)} MB/s (64 MB appended in 1 MB writes)`,
  );
}

async function resumeAfterReset(t, proxy, dir) {
  const p = join(dir, 'reset.log');
  writeFileSync(p, '');
  let last = 0;
  const h = t.follow(p, 0, (e) => {
    if (e.type === 'data') last = performance.now();
  });
  const writer = setInterval(() => appendFileSync(p, 'tick\n'), 5);
  const gaps = [];
  try {
    for (let i = 0; i < 5; i++) {
      await until(() => performance.now() - last < 50, 'steady delivery');
      const t0 = performance.now();
      proxy.reset();
      await until(() => last > t0 + 1 && t.state.state === 'ready', 'resumed delivery');
      gaps.push(last - t0);
    }
  } finally {
    clearInterval(writer);
    h.close();
  }
  console.log(
    `ssh reset -> resumed delivery: median ${pct(gaps, 50).toFixed(0)} ms, max ${Math.max(...gaps).toFixed(0)} ms over 5 RSTs (full-jitter backoff, base 1 s)`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'awrl-bench-remote-'));
let sshd;
let proxy;
const transports = [];
try {
  sshd = await startSshd(dir);
  proxy = await startProxy(sshd.port);
  writeFileSync(
    join(dir, 'known_hosts'),
    `[127.0.0.1]:${sshd.port} ${sshd.hostPub}\n[127.0.0.1]:${proxy.port} ${sshd.hostPub}\n`,
  );
  const cfg = join(dir, 'ssh_config');
  const block = (name, port) => [
    `Host ${name}`,
    '  HostName 127.0.0.1',
    `  Port ${port}`,
    `  User ${userInfo().username}`,
    `  IdentityFile ${join(dir, 'client')}`,
    '  IdentitiesOnly yes',
    `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
    '  StrictHostKeyChecking yes',
  ];
  writeFileSync(cfg, [...block('bench', sshd.port), ...block('bench-proxied', proxy.port)].join('\n') + '\n');

  const local = await openTransport('local');
  const ssh = await openTransport('bench', { sshConfigFile: cfg });
  const ssh20 = await openTransport('bench', { sshConfigFile: cfg, followPollMs: 20 });
  const proxied = await openTransport('bench-proxied', { sshConfigFile: cfg });
  transports.push(local, ssh, ssh20, proxied);
  console.log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  await latency(local, dir, 'local (poll 50 ms)');
  await latency(ssh, dir, 'ssh (poll 100 ms, default)');
  await latency(ssh20, dir, 'ssh (poll 20 ms)');
  await throughput(local, dir, 'local');
  await throughput(ssh, dir, 'ssh');
  await resumeAfterReset(proxied, proxy, dir);
} finally {
  for (const t of transports) await t.close().catch(() => {});
  proxy?.stop();
  if (sshd)
    for (const pid of [...descendants(sshd.pid), sshd.pid]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
    }
  rmSync(dir, { recursive: true, force: true });
}
