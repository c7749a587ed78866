// The sentinel's runtime on a target: Node ≥ 20 where the target's PATH has it after the setup
// line; else the Node binary this cockpit runs on, when the target's OS and architecture are this
// machine's; else the user is told exactly what to install. The sentinel's own modules always come
// as a bundle (runtime-bundle.ts) into ~/.cache/awrl-tui/NAME/, once, over the SSH connection.
import { createGzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { join } from 'node:path';
import type { Transport } from '../remote/transport.js';
import { remoteScript } from '../remote/quote.js';
import { parseMarkedLines } from '../runs/remote-scripts.js';
import { setupInWorkdir, type Target } from '../runs/targets.js';
import { BUNDLE_MAIN, INSTALL_ROOT, buildBundle, nodeBundle, type Bundle } from './runtime-bundle.js';
import { INSTALL_SCRIPT, RUNTIME_PROBE_SCRIPT } from './sentinel-scripts.js';
import { tarChunks } from './tar.js';

export const MIN_NODE_MAJOR = 20;

export interface SentinelRuntime {
  node: string;
  main: string;
  /** What this call installed on the target (bundle names; empty when all was there). */
  installed: string[];
  /** Where the Node binary came from. */
  nodeFrom: 'path' | 'installed' | 'local';
}

export class SentinelError extends Error {}

const UNAME_OS: Record<string, string> = { Linux: 'linux', Darwin: 'darwin', FreeBSD: 'freebsd' };
const UNAME_ARCH: Record<string, string> = { x86_64: 'x64', amd64: 'x64', aarch64: 'arm64', arm64: 'arm64' };
const nodeName = () => `node-${process.version}-${process.platform}-${process.arch}`;

let appBundle: Bundle | null = null;

export async function ensureRuntime(transport: Transport, target: Target): Promise<SentinelRuntime> {
  if (target.host === 'local')
    return { node: process.execPath, main: join(INSTALL_ROOT, BUNDLE_MAIN), installed: [], nodeFrom: 'local' };
  appBundle ??= buildBundle();
  const app = appBundle;
  const res = await transport.exec(
    remoteScript(RUNTIME_PROBE_SCRIPT, [setupInWorkdir(target), app.name, nodeName()], 'awrl-sentinel-probe'),
  );
  const probe = parseProbe(res.stdout.toString('utf8'));
  if (res.code !== 0 || !probe.cache)
    throw new SentinelError(`could not look at ${target.name} for the sentinel's runtime: ${lastLine(res.stderr)}`);
  const installed: string[] = [];
  const install = async (b: Bundle) => {
    await installBundle(transport, probe.cache, b, probe.gzip);
    installed.push(b.name);
  };
  let node: string;
  let nodeFrom: SentinelRuntime['nodeFrom'] = 'path';
  if (probe.node && majorOf(probe.nodeVersion) >= MIN_NODE_MAJOR) node = probe.node;
  else {
    const os = `${UNAME_OS[probe.kernel] ?? probe.kernel}-${UNAME_ARCH[probe.machine] ?? probe.machine}`;
    if (os !== `${process.platform}-${process.arch}`)
      throw new SentinelError(
        `${target.name} has ${probe.node ? `Node ${probe.nodeVersion} (${probe.node})` : 'no node'} on its PATH after the setup line, and its system (${probe.kernel} ${probe.machine}) is not this machine's (${process.platform} ${process.arch}), so this machine's Node cannot be copied there: install Node ${MIN_NODE_MAJOR} or newer on ${target.name} (e.g. in the environment the setup line activates) and start the sentinel again`,
      );
    if (!probe.have.has(nodeName())) await install(nodeBundle());
    node = `${probe.cache}/${nodeName()}/bin/node`;
    nodeFrom = 'installed';
  }
  if (!probe.have.has(app.name)) await install(app);
  return { node, main: `${probe.cache}/${app.name}/${BUNDLE_MAIN}`, installed, nodeFrom };
}

async function installBundle(transport: Transport, cache: string, b: Bundle, gzip: boolean): Promise<void> {
  const s = transport.execStream(
    remoteScript(INSTALL_SCRIPT, [cache, b.name, b.manifestSha, gzip ? '1' : '0'], 'awrl-sentinel-install'),
  );
  let out = '';
  let err = '';
  s.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  s.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const source = Readable.from(tarChunks(b.entries));
  const sending = gzip ? pipeline(source, createGzip({ level: 1 }), s.stdin) : pipeline(source, s.stdin);
  // The script may end early (already present, a full disk): its answer says why, not the pipe.
  const [sent, done] = await Promise.allSettled([sending, s.done]);
  if (done.status === 'rejected')
    throw new SentinelError(`the connection was lost while installing ${b.name}: ${(done.reason as Error).message}`);
  if (done.value.code === 0 && /^@@(installed|present)\t/m.test(out)) return;
  const why = err.trim().split('\n').pop() || (sent.status === 'rejected' ? (sent.reason as Error).message : '');
  throw new SentinelError(`installing ${b.name} into ${cache} failed: ${why || `exit ${done.value.code}`}`);
}

interface Probe {
  node: string;
  nodeVersion: string;
  kernel: string;
  machine: string;
  cache: string;
  have: Set<string>;
  gzip: boolean;
}

function parseProbe(text: string): Probe {
  const p: Probe = { node: '', nodeVersion: '', kernel: '', machine: '', cache: '', have: new Set(), gzip: false };
  for (const [k, f] of parseMarkedLines(text)) {
    if (k === 'node') [p.node = '', p.nodeVersion = ''] = f;
    else if (k === 'os') [p.kernel = '', p.machine = ''] = f;
    else if (k === 'cache') p.cache = f[0] ?? '';
    else if (k === 'have') p.have.add(f[0] ?? '');
    else if (k === 'gzip') p.gzip = f[0] === '1';
  }
  return p;
}

const majorOf = (v: string): number => Number(/^v?(\d+)\./.exec(v.trim())?.[1] ?? 0);
const lastLine = (b: Buffer): string => b.toString('utf8').trim().split('\n').pop() ?? '';
