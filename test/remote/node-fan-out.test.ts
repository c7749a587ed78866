// The node fan-out script under real bash on this machine as the head: HEAD_NODE runs locally,
// other names go through a stand-in `ssh` on PATH (the real two-host hop is in
// test/preflight/two-hosts.test.ts). Checks what every caller relies on: arguments arrive
// byte for byte, answers come back per node in the order given with their exit codes, a node
// that hangs is cut off at the time limit without holding up the others, bad names never reach ssh.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEAD_NODE, nodeFanOutArgv, splitNodeAnswers, unreachableReason } from '../../src/remote/node-fan-out.js';
import { endPendingQuestions } from '../harness/fan-out-pending.js';

let bin: string;

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'awrl-fanout-ssh-'));
  // Records its argv; "ok-*" warns on stderr like ssh with StrictHostKeyChecking=no, then runs the
  // script from stdin; "hang-*" never answers; others fail like ssh.
  writeFileSync(
    join(bin, 'ssh'),
    [
      '#!/bin/bash',
      'printf "%s\\n" "$*" >> "$(dirname "$0")/calls"',
      'while [ $# -gt 0 ]; do case $1 in -o|-F) shift 2;; --) shift; break;; -*) shift;; *) break;; esac; done',
      'case $1 in',
      '  ok-*) echo "Warning: Permanently added \'$1\' (ED25519) to the list of known hosts." >&2; AWRL_NODE=$1 exec bash -s;;',
      '  hang-*) exec sleep 600;;',
      '  *) echo "ssh: Could not resolve hostname $1: Name or service not known" >&2; exit 255;;',
      'esac',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
});

afterAll(async () => {
  await endPendingQuestions(bin); // the hung node's question, left pending in the background
  rmSync(bin, { recursive: true, force: true });
});

function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      argv[0],
      argv.slice(1),
      { env: { ...process.env, ...env, TMPDIR: bin, PATH: `${bin}:${process.env.PATH}` }, maxBuffer: 1 << 24 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    ),
  );
}

describe('node fan-out under real bash', () => {
  it('passes arguments byte for byte and answers per node, in order, with exit codes', async () => {
    const tricky = `it's $HOME; \`id\` "q" \\ ${'${x}'}\nline2`;
    // The head exits 3 (codes travel); the ssh'd nodes exit 0 (ssh's stderr warning is then dropped).
    const script = 'printf "<%s>|<%s>|%s\\n" "$1" "$2" "${AWRL_NODE:-head}"; [ -n "${AWRL_NODE:-}" ] || exit 3';
    const nodes = ['ok-1', HEAD_NODE, 'bad-2', 'ok-3'];
    const out = await run(nodeFanOutArgv('awrl-test', script, [tricky, ''], nodes));
    const answers = splitNodeAnswers(out);
    expect([...answers.keys()]).toEqual(nodes);
    for (const [n, who, rc] of [
      ['ok-1', 'ok-1', 0],
      [HEAD_NODE, 'head', 3],
      ['ok-3', 'ok-3', 0],
    ] as const) {
      expect(answers.get(n)).toEqual({ lines: [`<${tricky.split('\n')[0]}`, `line2>|<>|${who}`], rc });
      expect(unreachableReason(answers.get(n))).toBeNull();
    }
    expect(answers.get('bad-2')).toEqual({
      lines: ['ssh: Could not resolve hostname bad-2: Name or service not known'],
      rc: 255,
    });
    expect(unreachableReason(answers.get('bad-2'))).toMatch(/^ssh to the node failed/);
    expect(unreachableReason(undefined)).toBe('no answer from the fan-out script');
    // The values went on stdin, never onto the ssh command line.
    const calls = readFileSync(join(bin, 'calls'), 'utf8');
    expect(calls).not.toContain('line2');
    expect(calls).toMatch(/-o BatchMode=yes -o ConnectTimeout=5 .*-- ok-1 bash -s/);
  });

  it('a node that hangs is cut off at the limit while the others answer', async () => {
    const out = await run(
      nodeFanOutArgv('awrl-test', 'echo fine', [], ['hang-1', 'ok-2'], { nodeTimeoutSec: 1, connectTimeoutSec: 2 }),
    );
    const answers = splitNodeAnswers(out);
    expect(answers.get('ok-2')).toEqual({ lines: ['fine'], rc: 0 });
    expect([124, 137]).toContain(answers.get('hang-1')?.rc);
    expect(unreachableReason(answers.get('hang-1'), 1)).toBe('no answer within 1 s');
    expect(readFileSync(join(bin, 'calls'), 'utf8')).toMatch(/ConnectTimeout=2 /);
  });

  it('uses the ssh_config file given, else AWRL_NODE_SSH_CONFIG, else none', async () => {
    const calls = () => readFileSync(join(bin, 'calls'), 'utf8').trim().split('\n').pop() ?? '';
    await run(nodeFanOutArgv('t', 'true', [], ['ok-1'], { sshConfigFile: '/etc/awrl nodes.conf' }), {
      AWRL_NODE_SSH_CONFIG: '/env.conf',
    });
    expect(calls()).toContain('-F /etc/awrl nodes.conf -- ok-1');
    await run(nodeFanOutArgv('t', 'true', [], ['ok-1']), { AWRL_NODE_SSH_CONFIG: '/env.conf' });
    expect(calls()).toContain('-F /env.conf -- ok-1');
    await run(nodeFanOutArgv('t', 'true', [], ['ok-1']), { AWRL_NODE_SSH_CONFIG: '' });
    expect(calls()).not.toContain('-F');
  });

  it('refuses names ssh would read as options or that are no hostname', () => {
    expect(() => nodeFanOutArgv('t', 'true', [], ['-oProxyCommand=x'])).toThrow(
      /'-oProxyCommand=x' is not a node name/,
    );
    expect(() => nodeFanOutArgv('t', 'true', [], ['a b'])).toThrow(/is not a node name/);
    expect(nodeFanOutArgv('t', 'true', [], ['gpu-01.cluster', HEAD_NODE]).slice(3)).toEqual([
      't',
      'gpu-01.cluster',
      HEAD_NODE,
    ]);
  });

  it('an answer without its exit-code marker was cut off', () => {
    const answers = splitNodeAnswers('@@awrl-node a\n0, x\n@@awrl-rc 0\n@@awrl-node b\n0, y\n');
    expect(unreachableReason(answers.get('a'))).toBeNull();
    expect(unreachableReason(answers.get('b'))).toBe('the answer was cut off');
  });
});
