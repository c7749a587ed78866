// What the trainer refuses after its merge (#17): StatsLogger.get_log_path's empty names, the
// dataclasses' __post_init__ (areal/api/cli_args.py at webgym 01e3daef), name_resolve's etcd3
// address, names that cannot be one directory on the target; and hostile input, bounded.
import { describe, expect, it } from 'vitest';
import { MAX_CONFIG_CHARS, MAX_CONFIG_VALUES } from '../../src/config/yaml-load.js';
import { pathNameProblem } from '../../src/config/index.js';
import { evaluate, mutate, only, REFERENCE } from './helpers.js';

const errors = (overrides: string[], text = REFERENCE) =>
  evaluate(text, overrides).diagnostics.filter((d) => d.severity === 'error');
const LOG_PATH = 'ValueError: fileroot, experiment_name, and trial_name must be provided.';

describe("empty trial_name / experiment_name / cluster.fileroot: the trainer's get_log_path refuses", () => {
  it.each([
    ['trial_name=', 'trial_name'],
    ["experiment_name=''", 'experiment_name'],
    ['cluster.fileroot=', 'cluster.fileroot'],
    ['stats_logger.trial_name=', 'stats_logger.trial_name'],
  ])('%s', (o, key) => {
    const d = only(evaluate(REFERENCE, [o]), 'empty-name');
    expect(d.key).toBe(key);
    expect(d.message).toContain(LOG_PATH);
    expect(d.override?.index).toBe(1);
  });

  it('in the file, at its line', () => {
    const text = mutate('trial_name: intuition-model', "trial_name: ''");
    const d = only(evaluate(text), 'empty-name');
    expect([d.key, d.line]).toEqual(['trial_name', 12]);
  });
});

describe("the dataclasses' __post_init__", () => {
  it.each([
    [
      '++actor.archon.pp_layers_per_stage=0',
      'actor.archon.pp_layers_per_stage',
      'pp_layers_per_stage must be >= 1, got 0',
    ],
    [
      '++actor.archon.pp_layers_per_stage=-3',
      'actor.archon.pp_layers_per_stage',
      'pp_layers_per_stage must be >= 1, got -3',
    ],
    [
      '++actor.archon.pp_first_stage_less_layers=-1',
      'actor.archon.pp_first_stage_less_layers',
      'pp_first_stage_less_layers must be >= 0, got -1',
    ],
    [
      '++actor.archon.pp_last_stage_less_layers=-2',
      'actor.archon.pp_last_stage_less_layers',
      'pp_last_stage_less_layers must be >= 0, got -2',
    ],
    ['++ref.archon.pp_layers_per_stage=0', 'ref.archon.pp_layers_per_stage', 'pp_layers_per_stage must be >= 1, got 0'],
  ])('%s: ArchonEngineConfig refuses it', (o, key, message) => {
    const d = only(evaluate(REFERENCE, [o]), 'archon-pp');
    expect(d.key).toBe(key);
    expect(d.message).toContain(message);
  });

  it('the values the dataclass takes pass: pp_layers_per_stage 1 or null, less_layers 0', () => {
    const ev = evaluate(REFERENCE, [
      '++actor.archon.pp_layers_per_stage=1',
      '++actor.archon.pp_first_stage_less_layers=0',
      '++ref.archon.pp_layers_per_stage=null',
    ]);
    expect(ev.diagnostics.filter((d) => d.code === 'archon-pp')).toEqual([]);
  });

  it('fsdp.memory_efficient_load with init_from_scratch: TrainEngineConfig refuses it', () => {
    const d = only(
      evaluate(REFERENCE, ['++actor.fsdp.memory_efficient_load=true', '++actor.init_from_scratch=true']),
      'memory-efficient-load',
    );
    expect(d.key).toBe('actor.fsdp.memory_efficient_load');
    expect(d.message).toContain('memory_efficient_load cannot be used with init_from_scratch=True');
    // Either alone is fine.
    expect(
      errors(['++actor.fsdp.memory_efficient_load=true']).filter((x) => x.code === 'memory-efficient-load'),
    ).toEqual([]);
    expect(errors(['++actor.init_from_scratch=true']).filter((x) => x.code === 'memory-efficient-load')).toEqual([]);
  });
});

describe('cluster.name_resolve.etcd3_addr: `host, port = addr.split(":")` then int(port)', () => {
  it.each(['localhost', 'a:b:2379', 'etcd:', 'etcd:port'])('etcd3 with %s is refused', (addr) => {
    const d = only(
      evaluate(REFERENCE, ['cluster.name_resolve.type=etcd3', `++cluster.name_resolve.etcd3_addr='${addr}'`]),
      'etcd3-addr',
    );
    expect(d.message).toContain('write host:port');
  });
  it('host:port passes; another name_resolve type does not read it', () => {
    expect(
      errors(['cluster.name_resolve.type=etcd3', '++cluster.name_resolve.etcd3_addr=etcd.internal:2379']).filter(
        (d) => d.code === 'etcd3-addr',
      ),
    ).toEqual([]);
    expect(errors(['++cluster.name_resolve.etcd3_addr=nonsense']).filter((d) => d.code === 'etcd3-addr')).toEqual([]);
  });
});

describe('names that would break paths on the target', () => {
  it.each([
    ['trial_name=a/b', "contains '/'"],
    ['trial_name=..', "is '..'"],
    [`trial_name=${'x'.repeat(256)}`, '256 bytes long'],
    [`trial_name='${'é'.repeat(128)}'`, '256 bytes long'],
    ["experiment_name='../etc'", "contains '/'"],
  ])('%s', (o, why) => {
    const d = only(evaluate(REFERENCE, [o]), 'name-path');
    expect(d.message).toContain(why);
    expect(d.message.length).toBeLessThan(400); // a long name is cut in the message
  });

  it('NUL in a name (from the file) is refused and shown escaped', () => {
    const d = only(evaluate(mutate('trial_name: intuition-model', 'trial_name: "a\\0b"')), 'name-path');
    expect(d.message).toContain('NUL');
    expect(d.message).not.toContain('\0');
  });

  it('the wandb id file <experiment>__<trial> must fit one name too', () => {
    const d = only(
      evaluate(REFERENCE, [`experiment_name=${'e'.repeat(150)}`, `trial_name=${'t'.repeat(150)}`]),
      'name-path',
    );
    expect(d.message).toContain('wandb id file');
  });

  it('the check the demo trainer uses too', () => {
    expect(pathNameProblem('intuition-model')).toBeNull();
    expect(pathNameProblem('a..b')).toBeNull(); // a plain name with dots is one directory
    expect(pathNameProblem('x'.repeat(255))).toBeNull();
    expect(pathNameProblem('.')).toMatch(/directory itself/);
  });
});

describe('a file that is only a scalar: what the trainer says', () => {
  it("a string is {string: None} to OmegaConf.create: Key 'hello' not in 'WebGymConfig'", () => {
    const d = only(evaluate('hello\n'), 'unknown-key');
    expect(d.message).toMatch(/^Key 'hello' not in 'WebGymConfig'/);
    expect(d.line).toBe(1);
  });
  it.each([
    ['42\n', 'int'],
    ['true\n', 'bool'],
    ['1.5\n', 'float'],
  ])('%j: Invalid loaded object type', (text, type) => {
    expect(only(evaluate(text), 'yaml-syntax').message).toContain(`Invalid loaded object type: ${type}`);
  });
  it('a list: Hydra wants a dictionary', () => {
    expect(only(evaluate('- a\n- b\n'), 'yaml-syntax').message).toContain('must be a Dictionary, got ListConfig');
  });
});

describe('bounded work on hostile input', () => {
  const bomb = [
    'a0: &a0 [x, x, x, x, x, x, x, x, x, x]',
    ...Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`),
  ].join('\n');

  it('a 1 KB alias bomb is refused past the value limit, quickly, saying the trainer would blow up too', () => {
    const t0 = Date.now();
    const d = only(evaluate(`${bomb}\n`), 'yaml-syntax');
    expect(Date.now() - t0).toBeLessThan(20_000); // unbounded, it ran for minutes
    expect(d.message).toContain(`more than ${MAX_CONFIG_VALUES.toLocaleString('en')} values`);
    expect(d.message).toMatch(/trainer's loader would blow up on it too/);
  });

  it('a file past the size limit is refused before it is parsed', () => {
    const big = `webgym:\n  big: "${'x'.repeat(MAX_CONFIG_CHARS)}"\n`;
    const d = only(evaluate(big), 'yaml-syntax');
    expect(d.message).toContain('characters: refused');
    expect([d.line, d.col]).toEqual([1, 1]);
  });

  it('a long list past the value limit is refused at the line where it passes it', () => {
    const list = `webgym:\n  big:\n${'    - 1\n'.repeat(MAX_CONFIG_VALUES + 10)}`;
    const d = only(evaluate(list), 'yaml-syntax');
    expect(d.message).toContain('lines and flow items');
    expect(d.line).toBe(MAX_CONFIG_VALUES + 1);
  });

  it('interpolations of interpolated lists (an interpolation bomb) are refused, quickly', () => {
    const levels = Array.from(
      { length: 7 },
      (_, i) => `  a${i + 1}: [${Array(10).fill(`"\${webgym.a${i}}"`).join(', ')}]`,
    );
    const t0 = Date.now();
    const d = only(evaluate(`webgym:\n  a0: [x, x, x, x, x, x, x, x, x, x]\n${levels.join('\n')}\n`), 'interpolation');
    expect(Date.now() - t0).toBeLessThan(20_000); // unbounded, a minute and 1.6 GB
    expect(d.message).toMatch(/more than 400,000 values.*OmegaConf would blow up on it too/);
  });

  it('below the limits a big list still reads', () => {
    const list = mutate('webgym:\n', `webgym:\n  big: [${Array(50_000).fill('1').join(',')}]\n`);
    expect(evaluate(list).resolved?.webgym.big).toHaveLength(50_000);
  });
});

describe('the demo trainer refuses the same names with a clear error, no stack trace', () => {
  it.each([['trial_name=a/b'], [`trial_name=${'x'.repeat(300)}`], ['trial_name=..']])('%s', async (o) => {
    const { mkdtempSync, rmSync, writeFileSync, existsSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { simMain } = await import('../../src/sim/main.js');
    const dir = mkdtempSync(join(tmpdir(), 'awrl-names-'));
    try {
      const root = join(dir, 'root');
      const cfg = join(dir, 'c.yaml');
      writeFileSync(cfg, REFERENCE.replace('/path/to/areal-fileroot', root));
      let err = '';
      const code = await simMain(
        ['--config', cfg, o],
        { WANDB_API_KEY: 'x', HOME: dir },
        { stdout: () => {}, stderr: (s) => (err += s) },
        'instant',
      );
      expect(code).toBe(1);
      expect(err).toMatch(/ValueError: invalid experiment config .*trial_name/);
      expect(err).not.toMatch(/\n\s+at /);
      expect(existsSync(root)).toBe(false); // nothing half-made
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('${oc.env:…} in what names the experiment: unknown here, never the text spliced in', () => {
  it.each([
    ['actor.path=${oc.env:MODEL}', 'actor.path'],
    ['experiment_name=run-${oc.env:USER}', 'experiment_name'],
    ['actor.optimizer.lr=${oc.env:LR}', 'actor.optimizer.lr'],
  ])('%s', (o, key) => {
    const ev = evaluate(REFERENCE, [o], ['WANDB_API_KEY', 'MODEL', 'USER']);
    expect(ev.experimentName).toBeNull();
    expect(ev.experimentNameUnknown).toContain("depends on the target's environment");
    const d = only(ev, 'experiment-name-unknown');
    expect([d.key, d.severity, d.override?.index]).toEqual([key, 'warning', 1]);
    expect(ev.diagnostics.filter((x) => x.code === 'name-path')).toEqual([]);
  });

  it('a resolver before the last / of actor.path leaves the name known', () => {
    const ev = evaluate(REFERENCE, ['actor.path=${oc.env:ROOT}/Qwen3-VL-8B-Instruct']);
    expect(ev.experimentName).toBe('qwen3vl8b-inst-grpo-offpolicy2-nokl-prox-batch128-k8-lr5e-06');
    expect(ev.experimentNameUnknown).toBeNull();
  });

  it("the warning never holds a secret's value (only the names of variables)", () => {
    const ev = evaluate(REFERENCE, ['actor.path=${oc.env:GEMINI_API_KEY}'], ['WANDB_API_KEY', 'GEMINI_API_KEY']);
    expect(JSON.stringify(ev.diagnostics)).not.toMatch(/sk-|AIza/);
    expect(ev.experimentName).toBeNull();
  });
});

describe("the name check agrees with the target's filesystem (real os.makedirs, as get_log_path calls it)", () => {
  it('names refused for NUL or length fail in Python; names accepted are made as ONE directory', async () => {
    const { spawnSync } = await import('node:child_process');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { PYTHON } = await import('../harness/omegaconf.js');
    const names = [
      'intuition-model',
      'a..b',
      'x'.repeat(255),
      'é'.repeat(127),
      'x'.repeat(256),
      'é'.repeat(128),
      'a\0b',
      'a/b',
      '..',
      '.',
    ];
    const dir = mkdtempSync(join(tmpdir(), 'awrl-mkdirs-'));
    try {
      const py = [
        'import json, os, sys',
        'root = sys.argv[1]',
        'out = []',
        'for n in json.load(sys.stdin):',
        '    p = os.path.join(root, "logs", "u", n)',
        '    try:',
        '        os.makedirs(p, exist_ok=True)',
        '        out.append("one" if os.path.dirname(os.path.normpath(p)) == os.path.join(root, "logs", "u") else "not-one")',
        '    except (OSError, ValueError) as e:',
        '        out.append(type(e).__name__)',
        'json.dump(out, sys.stdout)',
      ].join('\n');
      const r = spawnSync(PYTHON, ['-c', py, dir], { input: JSON.stringify(names), encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const real = JSON.parse(r.stdout) as string[];
      names.forEach((n, i) =>
        expect([n.slice(0, 12), pathNameProblem(n) === null], real[i]).toEqual([n.slice(0, 12), real[i] === 'one']),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
