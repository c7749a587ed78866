import { describe, expect, it } from 'vitest';
import {
  evaluatePreflight,
  estimateParams,
  formatChecks,
  hasErrors,
  parseSinfo,
  parseSlurmTime,
  type CheckResult,
} from '../../src/preflight/index.js';
import { facts, gpuCsv, input, resolved } from './synth.js';

const by = (checks: CheckResult[], id: string): CheckResult => {
  const c = checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id} in ${checks.map((x) => x.id).join(',')}`);
  return c;
};

describe('preflight evaluation (pure)', () => {
  it('a healthy target passes every check', () => {
    const checks = evaluatePreflight(input());
    expect(checks.filter((c) => c.result !== 'ok')).toEqual([]);
    expect(checks.map((c) => c.id)).toEqual([
      'checkout',
      'setup',
      'python',
      'model',
      'dataset:train',
      'dataset:valid',
      'gpus',
      'gpu-memory',
      'fileroot',
      'resume',
      'secrets',
    ]);
    expect(hasErrors(checks)).toBe(false);
    expect(by(checks, 'dataset:train').seen).toBe(
      '/data/webgym_tasks/train.jsonl: 2560 lines ÷ batch_size 128 = 20 steps per epoch; × 10 epochs = 200 steps',
    );
    expect(by(checks, 'gpus').seen).toBe('gpu-head: 8 × NVIDIA H100 80GB HBM3; allocation_mode needs 8');
  });

  it('a missing checkout or train.py is an error', () => {
    expect(
      by(
        evaluatePreflight(input({ facts: facts({ workdir: { path: '/x', exists: false, trainPy: false } }) })),
        'checkout',
      ),
    ).toMatchObject({ result: 'error', seen: '/x does not exist on gpu-head' });
    expect(
      by(
        evaluatePreflight(input({ facts: facts({ workdir: { path: '/x', exists: true, trainPy: false } }) })),
        'checkout',
      ).result,
    ).toBe('error');
  });

  it('a failing setup line and a missing python are errors with the reason', () => {
    const c = evaluatePreflight(
      input({
        facts: facts({
          setup: {
            given: true,
            ok: false,
            rc: 1,
            out: 'EnvironmentNameNotFound: Could not find conda environment: areal\n',
          },
          python: { command: 'python3.12', ok: false, rc: 127, out: 'python3.12: command not found' },
        }),
      }),
    );
    expect(by(c, 'setup')).toMatchObject({
      result: 'error',
      seen: 'the setup line failed with exit 1: EnvironmentNameNotFound: Could not find conda environment: areal',
    });
    expect(by(c, 'python')).toMatchObject({
      result: 'error',
      seen: 'python3.12 does not run (not found) after the setup line',
    });
  });

  it('a missing model path is an error; a Hub id is named as such; a directory without config.json too', () => {
    const missing = by(
      evaluatePreflight(
        input({
          facts: facts({
            model: {
              path: '/models/Qwen3-VL-8B-Instruct',
              exists: false,
              isDir: false,
              configJson: null,
              safetensorsBytes: null,
            },
          }),
        }),
      ),
      'model',
    );
    expect(missing).toMatchObject({
      result: 'error',
      seen: 'actor.path /models/Qwen3-VL-8B-Instruct does not exist on gpu-head',
    });
    const hub = by(
      evaluatePreflight(
        input({
          resolved: resolved({ 'actor.path': 'Qwen/Qwen3-VL-8B-Instruct' }),
          facts: facts({
            model: {
              path: 'Qwen/Qwen3-VL-8B-Instruct',
              exists: false,
              isDir: false,
              configJson: null,
              safetensorsBytes: null,
            },
          }),
        }),
      ),
      'model',
    );
    expect(hub.seen).toMatch(/is a Hub id/);
    const noCfg = by(
      evaluatePreflight(
        input({
          facts: facts({ model: { path: '/m', exists: true, isDir: true, configJson: null, safetensorsBytes: null } }),
        }),
      ),
      'model',
    );
    expect(noCfg).toMatchObject({ result: 'error' });
    expect(noCfg.seen).toMatch(/has no config.json/);
  });

  it('a missing dataset is an error; too few lines for one batch too', () => {
    const f = facts({
      datasets: [
        { path: '/data/webgym_tasks/train.jsonl', exists: false, lines: null },
        { path: '/data/webgym_tasks/test.jsonl', exists: true, lines: 10 },
      ],
    });
    const c = evaluatePreflight(input({ facts: f }));
    expect(by(c, 'dataset:train')).toMatchObject({
      result: 'error',
      seen: 'train_dataset.path /data/webgym_tasks/train.jsonl does not exist on gpu-head',
    });
    expect(by(c, 'dataset:valid')).toMatchObject({
      result: 'error',
      seen: '/data/webgym_tasks/test.jsonl: 10 lines < valid_dataset.batch_size 32: not one full batch',
    });
    expect(hasErrors(c)).toBe(true);
  });

  it('counts GPUs per node against cluster.n_gpus_per_node and allocation_mode', () => {
    const four = facts({
      gpuNodes: [{ node: '', gpus: { ok: true, rc: 0, out: gpuCsv(4) }, apps: { ok: true, rc: 0, out: '' } }],
    });
    const c = by(evaluatePreflight(input({ facts: four })), 'gpus');
    expect(c.result).toBe('error');
    expect(c.seen).toContain('gpu-head has 4 GPUs but cluster.n_gpus_per_node is 8');
    expect(c.seen).toContain('allocation_mode needs 8 GPUs but the target has 4');
    const more = by(
      evaluatePreflight(input({ resolved: resolved({ 'cluster.n_gpus_per_node': 4 }), allocationGpus: 4 })),
      'gpus',
    );
    expect(more.result).toBe('warning');
    const multi = by(
      evaluatePreflight(input({ resolved: resolved({ 'cluster.n_nodes': 8 }), allocationGpus: 64 })),
      'gpus',
    );
    // 8 nodes, only the head asked: the other 7 are unknown, not assumed like it.
    expect(multi.result).toBe('warning');
    expect(multi.seen).toContain('7 of the 8 nodes not checked');
    const noSmi = facts({
      gpuNodes: [
        {
          node: '',
          gpus: { ok: false, rc: 127, out: 'nvidia-smi: command not found' },
          apps: { ok: false, rc: 127, out: '' },
        },
      ],
    });
    expect(by(evaluatePreflight(input({ facts: noSmi })), 'gpus')).toMatchObject({ result: 'error' });
    expect(by(evaluatePreflight(input({ facts: noSmi })), 'gpus').seen).toContain('gpu-head: nvidia-smi not found');
    // On Slurm the login node need not have GPUs.
    const slurm = input({
      facts: noSmi,
      target: { name: 's', backend: 'slurm', workdir: '/w', python: 'python3', slurm: { gpusPerNode: 8 } },
    });
    expect(by(evaluatePreflight(slurm), 'gpus').result).toBe('ok');
  });

  it('reports GPU memory in use with the PID, naming leftovers of other runs', () => {
    const f = facts({
      gpuNodes: [
        {
          node: '',
          gpus: { ok: true, rc: 0, out: gpuCsv(8, (i) => (i === 2 ? 61_000 : i === 5 ? 30_000 : 3)) },
          apps: {
            ok: true,
            rc: 0,
            out: '4242, GPU-00000002-aaaa-bbbb-cccc-dddddddddddd, 60990, python3\n777, GPU-00000005-aaaa-bbbb-cccc-dddddddddddd, 29990, /usr/bin/python\n',
          },
        },
      ],
      processes: [
        { pid: 4242, runId: '20260529-1200-old', user: 'alice', cmd: 'python3 -m areal.infra.rpc.rpc_server' },
        { pid: 777, runId: null, user: 'bob', cmd: '/usr/bin/python train.py' },
      ],
    });
    const ended = new Map([['20260529-1200-old', { state: 'failed' as const }]]);
    const c = by(evaluatePreflight(input({ facts: f, otherRuns: ended })), 'gpu-memory');
    expect(c.result).toBe('error');
    expect(c.seen).toBe(
      'gpu-head GPU 2: 61000/81559 MiB in use by PID 4242 (python3 -m areal.infra.rpc.rpc_server, 60990 MiB, leftover of run 20260529-1200-old (failed)); ' +
        'gpu-head GPU 5: 30000/81559 MiB in use by PID 777 (/usr/bin/python train.py, 29990 MiB)',
    );
    expect(c.todo).toContain('Stop the leftovers of ended runs: awrl-tui stop 20260529-1200-old --target h100');
    expect(c.todo).toContain('kill 4242 777');
    // The same processes while that run is running: in use by it, never advised as leftovers.
    const live = new Map([['20260529-1200-old', { state: 'running' as const, step: 9, totalSteps: 64 }]]);
    const r = by(evaluatePreflight(input({ facts: f, otherRuns: live })), 'gpu-memory');
    expect(r.seen).toContain(
      '(python3 -m areal.infra.rpc.rpc_server, 60990 MiB, in use by running run 20260529-1200-old (step 9/64))',
    );
    expect(r.todo).not.toContain('leftover');
    expect(r.todo).toContain('Run 20260529-1200-old may still be going');
    expect(r.todo).toContain('wait for it to end, use other GPUs or nodes, or stop it deliberately');
    // Its state not asked: not called a leftover either.
    const unasked = by(evaluatePreflight(input({ facts: f })), 'gpu-memory');
    expect(unasked.seen).toContain('of run 20260529-1200-old (its state not checked)');
    expect(unasked.todo).not.toContain('leftover');
    // Our own run's processes are not leftovers.
    const own = by(evaluatePreflight(input({ facts: f, runId: '20260529-1200-old' })), 'gpu-memory');
    expect(own.seen).not.toContain('leftover');
  });

  it('idle GPUs with a few MiB are free', () => {
    expect(by(evaluatePreflight(input()), 'gpu-memory')).toMatchObject({ result: 'ok', seen: 'all 8 GPUs free' });
  });

  it('fileroot: not writable is an error; free disk against the checkpoint size', () => {
    const nw = facts({ fileroot: { path: '/ro/root', exists: false, testedDir: '/ro', writable: false, availKB: 5 } });
    expect(by(evaluatePreflight(input({ facts: nw })), 'fileroot')).toMatchObject({
      result: 'error',
      seen: 'cluster.fileroot /ro/root: cannot write to /ro as alice',
    });
    const small = facts({
      fileroot: { path: '/r', exists: true, testedDir: '/r', writable: true, availKB: 30_000_000 },
    });
    const s = by(evaluatePreflight(input({ facts: small })), 'fileroot');
    expect(s.result).toBe('error');
    expect(s.seen).toBe(
      '/r is writable, 30.7 GB free; a recover checkpoint is ~48.0 GB (8.0B params from the model name Qwen3-VL-8B-Instruct × 6 bytes for weights and Adam state)',
    );
    const one = facts({ fileroot: { path: '/r', exists: true, testedDir: '/r', writable: true, availKB: 60_000_000 } });
    expect(by(evaluatePreflight(input({ facts: one })), 'fileroot').result).toBe('warning');
  });

  it('estimates parameters from the weights, config.json, or the name', () => {
    expect(
      estimateParams({ path: '/m/x', configJson: '{"torch_dtype":"bfloat16"}', safetensorsBytes: 17_534_000_000 }),
    ).toEqual({ params: 8_767_000_000, from: 'the safetensors index' });
    expect(estimateParams({ path: '/m/Qwen2.5-0.5B-Instruct', configJson: null, safetensorsBytes: null })?.params).toBe(
      0.5e9,
    );
    expect(estimateParams({ path: '/m/gpt2', configJson: '{}', safetensorsBytes: null })).toBeNull();
  });

  it('an existing recover checkpoint says plainly that the launch resumes, at the right step', () => {
    const f = facts({
      recover: {
        path: '/shared/fileroot/checkpoints/alice/exp/trial/recover_info/step_info.json',
        content: '{"epoch": 0, "epoch_step": 5, "global_step": 5, "steps_per_epoch": 20}',
      },
    });
    const c = by(evaluatePreflight(input({ facts: f })), 'resume');
    expect(c.result).toBe('warning');
    expect(c.seen).toBe(
      'this launch will RESUME from step 6 (recover checkpoint of exp/trial after step 6 of 200; training continues at step 7)',
    );
    const bad = facts({ recover: { path: '/p/step_info.json', content: 'garbage' } });
    expect(by(evaluatePreflight(input({ facts: bad })), 'resume').result).toBe('error');
  });

  it('secrets: names only; a missing required one is an error, a missing optional one a warning', () => {
    const secrets = [
      { name: 'WANDB_API_KEY', required: true, why: 'stats_logger.wandb.mode is online' },
      { name: 'GEMINI_API_KEY', required: false, why: 'evaluator' },
    ];
    const c = by(evaluatePreflight(input({ secrets, envNames: new Set(['GEMINI_API_KEY']) })), 'secrets');
    expect(c).toMatchObject({
      result: 'error',
      seen: 'set locally: GEMINI_API_KEY; WANDB_API_KEY is not set (stats_logger.wandb.mode is online)',
    });
    expect(by(evaluatePreflight(input({ secrets, envNames: new Set(['WANDB_API_KEY']) })), 'secrets').result).toBe(
      'warning',
    );
  });
});

describe('Slurm checks (pure)', () => {
  const slurmInput = (
    over: {
      sinfo?: string;
      testOnly?: { ok: boolean; rc: number; out: string };
      partition?: string;
      timeLimit?: string;
      freq?: number | null;
    } = {},
  ) =>
    input({
      target: {
        name: 'cluster',
        backend: 'slurm',
        workdir: '/w',
        python: 'python3',
        slurm: { partition: over.partition ?? 'gpu', ...(over.timeLimit ? { timeLimit: over.timeLimit } : {}) },
      },
      resolved: resolved({ 'recover.freq_secs': over.freq === undefined ? 1200 : over.freq }),
      facts: facts({
        slurm: {
          asked: true,
          sinfo: {
            ok: true,
            rc: 0,
            out:
              over.sinfo ??
              'debug*|up|infinite|1|(null)\ngpu|up|2-00:00:00|8|gpu:h100:8\ngpu|up|2-00:00:00|8|gpu:h100:8\n',
          },
          testOnly: over.testOnly ?? {
            ok: true,
            rc: 0,
            out: 'sbatch: Job 42 to start at 2026-05-25T12:00:00 using 64 processors on nodes n[1-8] in partition gpu\n',
          },
        },
      }),
    });

  it('accepts an existing partition and a submittable job', () => {
    const c = evaluatePreflight(slurmInput({ timeLimit: '24:00:00' }));
    expect(by(c, 'slurm-partition')).toMatchObject({
      result: 'ok',
      seen: "partition 'gpu' is up, 8 nodes, time limit 2-00:00:00",
    });
    expect(by(c, 'slurm-submit').seen).toBe(
      'sbatch --test-only accepts the job: Job 42 to start at 2026-05-25T12:00:00 using 64 processors on nodes n[1-8] in partition gpu',
    );
    expect(by(c, 'slurm-time')).toMatchObject({ result: 'ok' });
    expect(by(c, 'slurm-time').seen).toContain('~46 recover checkpoints per allocation');
  });

  it('a missing partition lists the real ones', () => {
    expect(by(evaluatePreflight(slurmInput({ partition: 'a100' })), 'slurm-partition')).toMatchObject({
      result: 'error',
      seen: "partition 'a100' does not exist (partitions: debug*, gpu)",
    });
  });

  it("a rejected submission carries sbatch's reason", () => {
    const c = by(
      evaluatePreflight(
        slurmInput({
          testOnly: {
            ok: false,
            rc: 1,
            out: 'sbatch: error: Batch job submission failed: Requested node configuration is not available\n',
          },
        }),
      ),
      'slurm-submit',
    );
    expect(c).toMatchObject({
      result: 'error',
      seen: 'sbatch --test-only rejects the job: Batch job submission failed: Requested node configuration is not available',
    });
  });

  it('time limit against recover.freq_secs and a step, and against the partition', () => {
    expect(by(evaluatePreflight(slurmInput({ timeLimit: '20' })), 'slurm-time').result).toBe('error'); // 20 min < 20 min + 11 min
    expect(by(evaluatePreflight(slurmInput({ timeLimit: '3-00:00:00' })), 'slurm-time').seen).toContain(
      "exceeds partition 'gpu''s 2-00:00:00",
    );
    expect(by(evaluatePreflight(slurmInput({ timeLimit: '4:00:00', freq: null })), 'slurm-time').result).toBe(
      'warning',
    );
    expect(by(evaluatePreflight(slurmInput({ timeLimit: 'soon' })), 'slurm-time').result).toBe('error');
  });

  it('parses Slurm times and sinfo', () => {
    expect(
      ['30', '5:30', '1:00:00', '2-00', '1-02:03', '1-00:00:01', 'infinite', 'UNLIMITED', 'x'].map(parseSlurmTime),
    ).toEqual([1800, 330, 3600, 172800, 93780, 86401, Infinity, Infinity, null]);
    expect(parseSinfo('debug*|up|infinite|1|(null)\n').map((p) => [p.name, p.isDefault, p.up])).toEqual([
      ['debug', true, true],
    ]);
  });
});

describe('formatChecks', () => {
  it('prints one line per check and the todo under problems', () => {
    const text = formatChecks([
      { id: 'model', result: 'error', seen: 'actor.path /m does not exist on h', todo: 'Put the model there.' },
      { id: 'resume', result: 'warning', seen: 'this launch will RESUME from step 6', todo: 'Intended?' },
      { id: 'python', result: 'ok', seen: 'python3 is Python 3.11.9', todo: '' },
    ]);
    expect(text).toBe(
      'ERROR model   actor.path /m does not exist on h\n' +
        '              → Put the model there.\n' +
        'WARN  resume  this launch will RESUME from step 6\n' +
        '              → Intended?\n' +
        'ok    python  python3 is Python 3.11.9\n' +
        'preflight: 1 error, 1 warning: fix the errors before launching.\n',
    );
  });
});
