// The one-machine cluster itself (test/harness/cluster.ts): N idle Slurm nodes with 8 GPUs each,
// each node its own hostname and PID space, cross-node srun and node-to-node ssh by name, a killed
// namespace init takes every process of its node with it, and stop() leaves no process behind.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { startCluster } from '../harness/cluster.js';
import { pidAlive, waitFor } from '../harness/wait.js';

const marked = (dir: string): number[] =>
  readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/environ`).toString('latin1').includes(`AWRL_CLUSTER_DIR=${dir}`) && pidAlive(pid)
        );
      } catch {
        return false;
      }
    });

describe('the one-machine multi-node cluster', () => {
  it('3 nodes: Slurm sees them idle with 8 GPUs, nodes are isolated, a killed node takes its processes', async () => {
    const c = await startCluster({ nodes: 3 });
    try {
      const sinfo = execFileSync('sinfo', ['-h', '-N', '-o', '%N %T %G'], { env: c.env, encoding: 'utf8' })
        .trim()
        .split('\n');
      expect(sinfo).toEqual(['n1 idle gpu:8', 'n2 idle gpu:8', 'n3 idle gpu:8']);
      expect(c.onNode('n2', 'hostname').trim()).toBe('n2');
      // Its own PID space: a few processes (init, sshd, slurmd, this session), not the machine's.
      expect(Number(c.onNode('n2', 'ps -e --no-headers | wc -l').trim())).toBeLessThan(15);
      expect(c.onNode('n1', 'ssh n3 hostname').trim()).toBe('n3');
      expect(c.onNode('n1', 'srun -N3 hostname | sort').trim().split('\n')).toEqual(['n1', 'n2', 'n3']);
      const before = marked(c.dir).length;
      await c.killNode('n3');
      await waitFor(() => marked(c.dir).length < before, { what: "n3's processes to die" });
      expect(() => c.onNode('n1', 'ssh -o ConnectTimeout=3 n3 true', 15_000)).toThrow();
    } finally {
      await c.stop();
    }
    expect(marked(c.dir)).toEqual([]);
  }, 120_000);
});
