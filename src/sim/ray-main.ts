// Entry of the simulator's fake `ray` (DIR/bin/ray): start --head / --address [--block], status,
// list nodes, stop. The registry directory comes from AWRL_SIM_RAY_DIR (the wrapper bakes in
// DIR/state/ray). AWRL_SIM_RAY_FAIL=n3,n4: `ray start --address` fails on those hosts as a worker
// that cannot reach the head's GCS does (for the bring-up failure tests). AWRL_SIM_RAY_CORE_ONLY=1:
// a core-only install (`pip install ray`, no dashboard): `ray list nodes` fails, `ray status` works.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { cpus, hostname } from 'node:os';
import {
  NO_CLUSTER,
  NO_STATE_API,
  alive,
  headFor,
  joinFailure,
  listNodesJson,
  listNodesTable,
  membersOf,
  parseRayArgv,
  statusText,
  type RayNode,
} from './ray.js';
import { beat, pidAliveHere, readNodes, registerNode, unregister } from './ray-registry.js';

const dir = process.env.AWRL_SIM_RAY_DIR ?? '';
const host = hostname();
const out = (s: string): boolean => process.stdout.write(s.endsWith('\n') ? s : s + '\n');
const fail = (s: string, code = 1): void => {
  process.stderr.write(s.endsWith('\n') ? s : s + '\n');
  process.exitCode = code;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function ownIp(given: string | null): Promise<string> {
  if (given) return given;
  try {
    return (await lookup(host, { family: 4 })).address;
  } catch {
    return '127.0.0.1';
  }
}

/** The node's blocking process: beats until SIGTERM/SIGINT (ray stop, srun's end), then unregisters. */
async function holdNode(node: RayNode): Promise<void> {
  registerNode(dir, node);
  const end = (): void => {
    unregister(dir, node.host, node.pid);
    process.exit(0);
  };
  process.on('SIGTERM', end);
  process.on('SIGINT', end);
  process.on('SIGHUP', end);
  for (;;) {
    await sleep(1000);
    beat(dir, node.host);
  }
}

async function start(node: Omit<RayNode, 'pid'>, block: boolean): Promise<void> {
  const banner = [
    `Local node IP: ${node.ip}`,
    '',
    '--------------------',
    'Ray runtime started.',
    '--------------------',
    '',
  ];
  if (node.head)
    banner.push(
      'Next steps',
      '  To add another node to this Ray cluster, run',
      `    ray start --address='${node.address}'`,
      '',
    );
  if (block) {
    out([...banner, '--block', '  This command will now block forever until terminated by a signal.', ''].join('\n'));
    await holdNode({ ...node, pid: process.pid });
    return;
  }
  // Without --block Ray leaves daemons behind and returns: one detached process stands for them.
  const child = spawn(process.execPath, [process.argv[1]], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, AWRL_SIM_RAY_DAEMON: JSON.stringify(node) },
  });
  child.unref();
  const deadline = Date.now() + 10_000;
  while (!readNodes(dir).some((n) => n.host === host && n.pid === child.pid)) {
    if (Date.now() > deadline) return fail('ray start: the node process did not start');
    await sleep(100);
  }
  out(banner.join('\n'));
}

async function main(): Promise<void> {
  if (!dir)
    return fail('fake ray: AWRL_SIM_RAY_DIR is not set (run the DIR/bin/ray wrapper that `awrl-tui sim init` writes)');
  const daemon = process.env.AWRL_SIM_RAY_DAEMON;
  if (daemon) return holdNode({ ...(JSON.parse(daemon) as RayNode), pid: process.pid });
  const cmd = parseRayArgv(process.argv.slice(2));
  const now = Date.now();
  const nodes = readNodes(dir);
  const mine = nodes.find((n) => n.host === host && alive(n, now) && pidAliveHere(n.pid));
  const base = (ip: string, head: boolean, address: string, gpus: number | null) => ({
    host,
    ip,
    head,
    address,
    startedMs: now,
    cpus: cpus().length,
    gpus: gpus ?? Number(process.env.AWRL_SIM_RAY_GPUS ?? 8),
    nodeId: createHash('sha224').update(`${host} ${ip} ${now} ${process.pid}`).digest('hex'),
  });
  switch (cmd.kind) {
    case 'error':
      return fail(cmd.message, 2);
    case 'start-head': {
      if (mine) return fail(`ConnectionError: Ray is already running at ${mine.address}. Run 'ray stop' first.`);
      const ip = await ownIp(cmd.ip);
      return start(base(ip, true, `${ip}:${cmd.port}`, cmd.gpus), cmd.block);
    }
    case 'start-worker': {
      if (mine) return fail(`ConnectionError: Ray is already running at ${mine.address}. Run 'ray stop' first.`);
      const failing = (process.env.AWRL_SIM_RAY_FAIL ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (failing.includes(host)) return fail(joinFailure(cmd.address));
      // The head may still be coming up: try for a while, as Ray does.
      const deadline = Date.now() + Number(process.env.AWRL_SIM_RAY_JOIN_WAIT_MS ?? 10_000);
      while (!headFor(readNodes(dir), cmd.address, Date.now())) {
        if (Date.now() > deadline) return fail(joinFailure(cmd.address));
        await sleep(250);
      }
      return start(base(await ownIp(cmd.ip), false, cmd.address, cmd.gpus), cmd.block);
    }
    case 'status':
    case 'list-nodes': {
      const head = headFor(nodes, cmd.address ?? process.env.RAY_ADDRESS ?? null, now);
      if (!head) return fail(NO_CLUSTER);
      const members = membersOf(nodes, head);
      if (cmd.kind === 'status') out(statusText(members, now, cmd.verbose));
      else if (process.env.AWRL_SIM_RAY_CORE_ONLY === '1') fail(NO_STATE_API);
      else out(cmd.format === 'json' ? listNodesJson(members, now) : listNodesTable(members, now));
      return;
    }
    case 'stop': {
      if (mine) {
        try {
          process.kill(mine.pid, 'SIGTERM');
        } catch {
          /* gone already */
        }
        unregister(dir, host, mine.pid);
      }
      out(`Stopped all ${mine ? 1 : 0} Ray processes.`);
      return;
    }
  }
}

void main();
