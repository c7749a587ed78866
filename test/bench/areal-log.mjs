// The generated AReaL-format trainer log the benches read (parse, stream): 150-250-key tables,
// memory and batch records, Ray-forwarded worker lines, ANSI colours, as the trainer writes them.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const ESC = '\x1b';

let seed = 12345;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const sci = (v) => (Number.isNaN(v) ? 'nan' : v.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2'));

function header(stamp, logger, level, msg, colour = '37') {
  return `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[${colour}m${stamp} ${logger} ${level}: ${msg}`;
}

function table(pairs) {
  const cols = 4;
  const rows = Math.ceil(pairs.length / cols);
  const grid = [];
  for (let i = 0; i < rows; i++) {
    const r = [];
    for (let j = 0; j < cols; j++) {
      const it = pairs[j * rows + i];
      r.push(it ? it[0] : '', it ? it[1] : '');
    }
    grid.push(r);
  }
  const w = grid[0].map((_, c) => Math.max(...grid.map((r) => r[c].length)));
  const rule = (l, m, r) => l + w.map((x) => '═'.repeat(x + 2)).join(m) + r;
  const mid = '├' + w.map((x) => '─'.repeat(x + 2)).join('┼') + '┤';
  const out = [rule('╒', '╤', '╕')];
  grid.forEach((r, i) => {
    out.push('│' + r.map((c, k) => ' ' + (k % 2 ? c.padStart(w[k]) : c.padEnd(w[k])) + ' ').join('│') + '│');
    if (i < grid.length - 1) out.push(mid);
  });
  out.push(rule('╘', '╧', '╛'));
  return out.join('\n');
}

function stamp(sec) {
  const d = new Date(Date.UTC(2026, 4, 25) + sec * 1000);
  const p = (n, k = 2) => String(n).padStart(k, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}.${p(d.getUTCMilliseconds(), 3)}`;
}

const BASE_KEYS = [
  'rollout/reward',
  'rollout/num_steps',
  'ppo_actor/update/grad_norm',
  'ppo_actor/update/lr',
  'ppo_actor/n_tokens',
  'timeperf/train_step',
  'timeperf/rollout',
  'staleness/gap/offpolicy_max',
];
function keysFor(n) {
  const ks = [...BASE_KEYS];
  for (let i = 0; ks.length < n; i++)
    ks.push(`ppo_actor/update/compute_logp/extra_${i}/${['avg', 'max', 'min'][i % 3]}`);
  return ks;
}

/** Writes an AReaL-format log of at least `mb` MiB to `file`; returns the number of steps. Deterministic
 *  (a fixed seed), so every bench run reads the same bytes. */
export async function generateArealLog(file, mb) {
  seed = 12345;
  const out = createWriteStream(file, { highWaterMark: 1 << 22 });
  let bytes = 0;
  let g = 0;
  let t = 0;
  const write = async (s) => {
    bytes += Buffer.byteLength(s);
    if (!out.write(s)) await once(out, 'drain');
  };
  const target = mb * 1024 * 1024;
  while (bytes < target) {
    g++;
    t += 600;
    const s = stamp(t);
    const parts = [];
    parts.push(
      header(
        s,
        'RolloutController',
        'INFO',
        `prepare_batch/rollout: pending_before=1, consumed=16, wait=${(500 + rand() * 200).toFixed(1)}s, localize+concat=4.1s, total=${(510 + rand() * 200).toFixed(1)}s, batch_shape=[1093, 15211], n_episodes=128, mmi_len=1093`,
      ) + `${ESC}[0m`,
    );
    for (let w = 0; w < 20; w++) {
      parts.push(
        `(RayRPCServer pid=${48000 + w}, ip=10.0.0.${w % 8}) ` +
          header(
            s,
            'WebGymWorkflow',
            w % 10 ? 'INFO' : 'WARNING',
            w % 10
              ? `episode task=webgym_${g * 20 + w} step=${w}/20 reward=${rand().toFixed(3)} url=https://example.org/page/${w}`
              : `[EPISODE_TIMEOUT] task=webgym_${g} step=17/20 elapsed=45.2min limit=45min — terminating episode`,
          ) +
          `${ESC}[0m`,
      );
    }
    for (const phase of ['recompute logp', 'compute advantages', 'ppo update']) {
      parts.push(
        header(
          s,
          'IOStruct',
          'INFO',
          `Memory-Usage ${phase}: memory allocated (GB): ${(18 + rand() * 3).toFixed(2)}, memory reserved (GB): ${(60 + rand() * 10).toFixed(2)}, device memory used/total (GB): ${(64 + rand() * 10).toFixed(2)}/79.11`,
        ) + `${ESC}[0m`,
      );
    }
    // A run logs one key set (here 200 keys); evaluation steps add their test_rollout/* keys.
    const n = g % 10 === 0 ? 212 : 200;
    const pairs = keysFor(n).map((k) => [
      k,
      rand() < 0.01 ? 'nan' : sci((rand() - 0.3) * 10 ** Math.floor(rand() * 10 - 5)),
    ]);
    parts.push(
      header(s, 'StatsLogger', 'INFO', `Epoch 1/10 Step ${g}/100000 Train step ${g}/1000000 done.`, '92') + `${ESC}[0m`,
    );
    parts.push(header(s, 'StatsLogger', 'INFO', 'Stats (1/1):', '92') + `${ESC}[0m`);
    parts.push(header(s, 'StatsLogger', 'INFO', '', '92') + '\n' + table(pairs) + `${ESC}[0m`);
    await write(parts.join('\n') + '\n');
  }
  out.end();
  await once(out, 'finish');
  return g;
}
