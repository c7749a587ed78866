// QA pass: disagreements with the trainer found by probing its rules at their edges. Each case
// names what the trainer does (areal/api/alloc_mode.py's Lark grammar, webgym/train.py, Hydra,
// PyYAML) and this engine used to do otherwise.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inferExperimentName, parseAllocationMode } from '../../src/config/index.js';
import { evaluate, mutate, only, posOf, REFERENCE } from './helpers.js';

const BIN = new URL('../../bin/awrl-tui.js', import.meta.url).pathname;

describe('allocation_mode: what the Lark grammar accepts and refuses', () => {
  // The grammar has no component that starts with ':' (bare dims are `common_dim+`).
  it.each([':d4', 'sglang:d4+:d4'])('refuses a colon with neither backend nor name: %s', (mode) => {
    expect(parseAllocationMode(mode).ok).toBe(false);
  });

  // Whitespace is ignored BETWEEN tokens only: it cannot split a number, a backend or a name.
  it.each([
    ['sglang[rollout]:d4 8+fsdp[actor]:d16', 'a number split by a space'],
    ['fs dp:d4', 'a backend split by a space'],
    ['sglang[roll out]:d4+fsdp:d4', 'a name split by a space'],
  ])('refuses %s (%s)', (mode) => {
    expect(parseAllocationMode(mode).ok).toBe(false);
  });
  it('still accepts spaces between tokens, as the grammar does', () => {
    expect(parseAllocationMode(' sglang [rollout] : d48 + fsdp[actor]:d 16 ')).toMatchObject({
      ok: true,
      totalGpus: 64,
      actorDp: 16,
    });
  });

  // "3+ components need names" and "several anonymous training components need names" are
  // checks of the '+' chain (disaggregate_chain); a lone '|' group only needs its later members named.
  it.each(['fsdp:d4|fsdp[b]:d4|fsdp[c]:d4', 'd4|[b]:d4'])('accepts the lone colocation group %s', (mode) => {
    expect(parseAllocationMode(mode)).toMatchObject({ ok: true, totalGpus: 4 });
  });
  it('keeps refusing them in a + chain', () => {
    expect(parseAllocationMode('sglang:d4+fsdp:d4|fsdp[c]:d4').ok).toBe(false);
    expect(parseAllocationMode('sglang:d4+d4+[c]:d4').ok).toBe(false);
  });
});

describe('experiment name', () => {
  // Python's str.replace replaces every occurrence, not only the first.
  it('replaces every -instruct / -thinking / qwen3-vl- like str.replace', () => {
    const cfg = {
      actor: {
        path: '/m/Qwen3-VL-8B-Instruct-instruct-thinking-thinking',
        actor_loss: 'grpo',
        critic_loss: 'none',
        kl_ctl: 0,
        recompute_logprob: true,
        optimizer: { lr: 5e-6 },
      },
      rollout: { max_head_offpolicyness: 2, consumer_batch_size: 128 },
      gconfig: { n_samples: 8 },
    };
    expect(inferExperimentName(cfg)).toBe(
      'qwen3vl8b-inst-inst-think-think-grpo-offpolicy2-nokl-prox-batch128-k8-lr5e-06',
    );
  });
});

describe('messages', () => {
  // Hydra prints the config value with str(): a float field keeps its '.0'.
  it('~key=value with another value shows the values as Python prints them', () => {
    const d = only(evaluate(REFERENCE, ['~actor.kl_ctl=0.1']), 'override-delete');
    expect(d.message).toContain("The value of 'actor.kl_ctl' is 0.0 and not 0.1.");
  });

  it('a duplicate key names the key and the line of its first definition', () => {
    const t = mutate('  n_samples: 8\n', '  n_samples: 8\n  n_samples: 4\n');
    const d = only(evaluate(t), 'yaml-syntax');
    expect(d.line).toBe(posOf(t, 'n_samples: 4').line);
    expect(d.message).toContain("'n_samples'");
    expect(d.message).toContain(`line ${posOf(t, 'n_samples: 8').line}`);
  });

  it('duplicates in a flow mapping are found too; two merge keys (<<) are not duplicates, as in PyYAML', () => {
    const t = mutate('  n_samples: 8\n', '  n_samples: 8\n  stop: {a: 1, a: 2}\n');
    expect(only(evaluate(t), 'yaml-syntax').message).toContain("duplicate key 'a'");
    const m = mutate(
      'webgym:\n',
      'x_base: &xb {p: 1}\ny_base: &yb {q: 2}\nwebgym:\n  merged:\n    <<: *xb\n    <<: *yb\n',
    );
    expect(evaluate(m).diagnostics.filter((d) => d.code === 'yaml-syntax')).toEqual([]);
  });

  it('a tab used as indentation is one error that says to indent with spaces', () => {
    const t = mutate('  n_gpus_per_node: 8\n', '\tn_gpus_per_node: 8\n');
    const ev = evaluate(t);
    const d = only(ev, 'yaml-syntax');
    expect(d.line).toBe(posOf(t, 'n_gpus_per_node: 8').line);
    expect(d.message).toMatch(/tab/i);
    expect(d.message).toMatch(/spaces/);
  });
});

describe('rule messages print a float field as Python does', () => {
  it('behav_imp_weight_cap=1.0 is said as 1.0', () => {
    const d = only(evaluate(REFERENCE, ['actor.behav_imp_weight_cap=1.0']), 'behav-imp-weight-cap');
    expect(d.message).toContain('actor.behav_imp_weight_cap=1.0 must be > 1');
  });
});

describe('a long config through a pipe', () => {
  // Node writes to a pipe asynchronously once the pipe is full, and the CLI ends with
  // process.exit: `config show` must hand over all its output before it returns.
  it('config show prints all of a 2 MB config to a pipe', () => {
    const dir = mkdtempSync(join(tmpdir(), 'awrl-qa-'));
    try {
      // Few keys with long values: quick to evaluate, one big write.
      const keys = Array.from({ length: 20 }, (_, i) => `  key_${i}: ${'v'.repeat(100_000)}\n`).join('');
      const text = mutate('webgym:\n', `webgym:\n${keys}`);
      const f = join(dir, 'long.yaml');
      writeFileSync(f, text);
      const r = spawnSync(process.execPath, [BIN, 'config', 'show', f], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
        env: { ...process.env, WANDB_API_KEY: 'x' },
      });
      expect(r.status).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(2_000_000);
      expect(r.stdout.split('\n').length).toBe(text.split('\n').length);
      expect(r.stdout.endsWith('    enabled: true\n')).toBe(true);
      // A reader that stops early (`| head`) ends it quietly: no EPIPE stack trace.
      const h = spawnSync(
        '/bin/sh',
        ['-c', '"$0" "$1" config show "$2" | head -c 100 >/dev/null', process.execPath, BIN, f],
        { encoding: 'utf8', env: { ...process.env, WANDB_API_KEY: 'x' } },
      );
      expect(h.status).toBe(0);
      expect(h.stderr).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('type errors say what to write instead', () => {
  it.each([
    ['actor.optimizer.lr=abc', /field 'actor\.optimizer\.lr' is float\); write a number, e\.g\. 5e-6/],
    ['gconfig.n_samples=8.5', /field 'gconfig\.n_samples' is int\); write a whole number, e\.g\. 8/],
    ['actor.use_decoupled_loss=maybe', /field 'actor\.use_decoupled_loss' is bool\); write true or false/],
    ['seed=null', /'seed' cannot be null: it is not Optional; give it a value, or delete the override/],
  ])('%s', (override, re) => {
    const ev = evaluate(REFERENCE, [override]);
    expect(ev.diagnostics.some((d) => re.test(d.message))).toBe(true);
  });
  it('an interpolated value of the wrong type says it too', () => {
    // The source (trial_name, a str) is fine; only the copy into an int field is wrong.
    const ev = evaluate(REFERENCE, ['sglang.random_seed=${trial_name}']);
    expect(
      ev.diagnostics.some(
        (d) =>
          d.key === 'sglang.random_seed' && /is int, from '\$\{trial_name\}'\); write a whole number/.test(d.message),
      ),
    ).toBe(true);
  });
});
