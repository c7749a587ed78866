// Writes edge.log: a deterministic mix of the shapes the fast paths of `awrl-tui parse --json`
// must treat exactly like the general path (see golden.test.ts). Run once; the output is committed.
//   node test/trainer-log/golden/make-edge-log.mjs > test/trainer-log/golden/edge.log
const ESC = '\x1b';
const rec = (stamp, logger, level, msg) =>
  `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[37m${stamp} ${logger} ${level}: ${msg}${ESC}[0m`;
function table(pairs, cols = 4) {
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
  const w = grid[0].map((_, c) => Math.max(...grid.map((r) => [...r[c]].length)));
  const pad = (s, n, left) => (left ? ' '.repeat(n - [...s].length) + s : s + ' '.repeat(n - [...s].length));
  const rule = (l, m, r) => l + w.map((x) => '═'.repeat(x + 2)).join(m) + r;
  const mid = '├' + w.map((x) => '─'.repeat(x + 2)).join('┼') + '┤';
  const out = [rule('╒', '╤', '╕')];
  grid.forEach((r, i) => {
    out.push('│' + r.map((c, k) => ' ' + pad(c, w[k], k % 2 === 1) + ' ').join('│') + '│');
    if (i < grid.length - 1) out.push(mid);
  });
  out.push(rule('╘', '╧', '╛'));
  return out;
}
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const sci = (v) => v.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2');
const stamp = (i) =>
  `20260525-12:${String(10 + Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String((i * 37) % 1000).padStart(3, '0')}`;
const odd = [
  'nan',
  'inf',
  '-inf',
  '1',
  '-0',
  '0.5',
  '1e5',
  'True',
  'False',
  '1.',
  '+3',
  '007',
  '1.2345e+300',
  '12345678901234567890',
  'abc',
  '',
  '-1.0000e-320',
  '.5',
  '1_000',
  '0x10',
  'NaN',
  'Infinity',
  '2.5E+03',
  '9007199254740993',
  '1.7976931348623157e308',
  '1e400',
];
const keysA = (n) =>
  Array.from({ length: n }, (_, i) =>
    i < 4
      ? ['rollout/reward', 'timeperf/train_step', 'ppo_actor/n_tokens', 'ppo_actor/update/grad_norm'][i]
      : `ppo_actor/k${i}/${['avg', 'max', 'min'][i % 3]}`,
  );
const lines = [];
const step = (g, pairs, { prefix = '', parts = 1, crlf = false, escRows = false } = {}) => {
  const s = stamp(g);
  lines.push(prefix + rec(s, 'StatsLogger', 'INFO', `Epoch 1/3 Step ${g}/50 Train step ${g}/150 done.`));
  const per = Math.ceil(pairs.length / parts);
  for (let p = 0; p < parts; p++) {
    lines.push((p === 0 ? prefix : '') + rec(s, 'StatsLogger', 'INFO', `Stats (${p + 1}/${parts}):`));
    lines.push(`${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[92m${s} StatsLogger INFO: `);
    const t = table(pairs.slice(p * per, (p + 1) * per));
    t[t.length - 1] += `${ESC}[0m`;
    for (let i = 0; i < t.length; i++) {
      let l = t[i];
      if (escRows && i % 4 === 1) l = `${ESC}[2m` + l;
      if (escRows && i % 4 === 3) l = l.replace(' │ ', ` │${ESC}[0m `);
      lines.push(crlf ? l + '\r' : l);
    }
  }
};
let g = 0;
// Plain steps with one layout, so the compiled shapes and position-interned keys kick in.
for (let i = 0; i < 8; i++)
  step(
    ++g,
    keysA(40).map((k) => [k, rand() < 0.1 ? 'nan' : sci((rand() - 0.4) * 10 ** Math.floor(rand() * 12 - 6))]),
  );
// Odd values in every cell of a table, twice (compiled shape both times after the 3rd).
for (let i = 0; i < 4; i++)
  step(
    ++g,
    keysA(odd.length).map((k, j) => [k, odd[(j + i) % odd.length]]),
  );
// The same keys in another order; unicode, quotes, backslashes, __proto__, duplicate keys.
step(
  ++g,
  keysA(40)
    .reverse()
    .map((k) => [k, '1.0000e+00']),
);
for (let i = 0; i < 4; i++)
  step(++g, [
    ['ключ/α', '1.0000e+00'],
    ['a"b', '2'],
    ['c\\d', '3'],
    ['tab\tkey', '4'],
    ['emoji/🚀', '5'],
    ['é', 'nan'],
  ]);
step(++g, [
  ['__proto__', '1'],
  ['x', '2'],
]);
step(++g, [
  ['dup', '1'],
  ['dup', '2'],
  ['y', '3'],
]);
step(++g, [
  ['k', '1'],
  ['', ''],
  ['m', '2'],
]);
// Escape codes inside table rows, CRLF line ends, multi-table steps, [main]-prefixed headers.
step(
  ++g,
  keysA(30).map((k) => [k, '3.0000e-01']),
  { escRows: true },
);
step(
  ++g,
  keysA(30).map((k) => [k, '3.0000e-01']),
  { crlf: true },
);
step(
  ++g,
  keysA(60).map((k) => [k, '4.0000e-01']),
  { parts: 2 },
);
step(
  ++g,
  keysA(40).map((k) => [k, '5.0000e-01']),
  { prefix: '[main]    ' },
);
// Worker lines interleaved: Ray-forwarded records, worker memory, worker warnings, tracebacks.
for (let w = 0; w < 6; w++) {
  lines.push(
    `(RayRPCServer pid=${4800 + w}, ip=10.0.0.${w}) ` +
      rec(
        stamp(g),
        'Worker',
        w % 2 ? 'WARNING' : 'INFO',
        w % 2
          ? `[EPISODE_TIMEOUT] task=t${w} — terminating`
          : 'Memory-Usage ppo update: memory allocated (GB): 1.00, memory reserved (GB): 2.00, device memory used/total (GB): 3.00/79.11',
      ),
  );
}
lines.push('[actor]   ' + rec(stamp(g), 'FSDPEngine', 'ERROR', 'CUDA out of memory. Tried to allocate 2.00 GiB'));
lines.push('[actor]   Traceback (most recent call last):');
lines.push('[actor]     File "x.py", line 1, in <module>');
lines.push('[actor]   torch.OutOfMemoryError: CUDA out of memory');
lines.push(
  rec(
    stamp(g),
    'IOStruct',
    'INFO',
    'Memory-Usage ppo update: memory allocated (GB): 18.20, memory reserved (GB): 60.10, device memory used/total (GB): 64.00/79.11',
  ),
);
lines.push(
  rec(
    stamp(g),
    'RolloutController',
    'INFO',
    'prepare_batch/rollout: pending_before=1, consumed=16, wait=512.3s, localize+concat=4.1s, total=530.2s, batch_shape=[1093, 15211], n_episodes=128, mmi_len=1093',
  ),
);
// Ray-forwarded lines of known workers around their open records (the worker fast path): an
// INFO line closes an open ERROR record; look-alikes that are not INFO headers must not.
const ray = (w, rest) => `(RayRPCServer pid=${4800 + w}, ip=10.0.0.${w}) ` + rest;
const areal = (s, body) => `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m ${ESC}[37m${s} ${body}${ESC}[0m`;
lines.push(ray(0, rec(stamp(g), 'Worker', 'ERROR', 'first failure')));
lines.push(ray(0, 'Traceback (most recent call last):'));
lines.push(ray(0, '  File "w.py", line 3'));
lines.push(ray(0, areal(stamp(g), 'Worker INFO:x not a header')));
lines.push(ray(0, areal(stamp(g), 'Worker INFO')));
lines.push(ray(0, areal(stamp(g), 'Wor\rker INFO: after a lone CR')));
lines.push(ray(0, areal(stamp(g), 'INFO WARNING: the first level is WARNING')));
lines.push(ray(0, areal(stamp(g).slice(0, 17), 'Worker INFO: no milliseconds')));
lines.push(ray(0, areal(stamp(g) + 'x', 'Worker INFO: bad stamp')));
lines.push(ray(0, areal(stamp(g), 'L'.repeat(300) + ' INFO: level beyond the head')));
lines.push(ray(0, 'RuntimeError: worker 0 failed'));
lines.push(ray(0, areal(stamp(g), 'Worker INFO:')));
lines.push(ray(1, rec(stamp(g), 'Worker', 'CRITICAL', 'second failure')));
lines.push(`(RayRPCServer pid=4801, ip=10.0.0.1)` + areal(stamp(g), 'Worker INFO: no space after the prefix'));
lines.push(
  `(RayRPCServer pid=4801,${ESC}[0m ip=10.0.0.1) ` + areal(stamp(g), 'Worker INFO: escape code in the prefix'),
);
lines.push(`(RayRPCServer pid=4801, ip=10.0.0.1) ` + areal(stamp(g), 'Worker DEBUG: closes it'));
lines.push(ray(2, rec(stamp(g), 'Worker', 'ERROR', 'third failure')));
lines.push(
  ray(2, `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m${ESC}[37m ${stamp(g)} Worker INFO: escape codes between the parts`),
);
lines.push(ray(3, rec(stamp(g), 'Worker', 'ERROR', 'fourth failure, closed by a long INFO line')));
lines.push(ray(3, rec(stamp(g), 'Worker', 'INFO', 'x'.repeat(500))));
// A step interrupted by another record before its table; a table with no header before it.
lines.push(rec(stamp(++g), 'StatsLogger', 'INFO', `Epoch 1/3 Step ${g}/50 Train step ${g}/150 done.`));
lines.push(rec(stamp(g), 'StatsLogger', 'INFO', 'Stats (1/1):'));
lines.push(rec(stamp(g), 'Other', 'WARNING', 'something else'));
lines.push(...table([['orphan', '1']]));
// Garbage: invalid UTF-8, NUL and high bytes, a table line cut short, lone CRs, box chars mid-line.
lines.push('\xff\xfe garbage \x00\x01 \x80\x81');
lines.push('│ not │ a │ table');
lines.push('── ├ ╒ ╘ │');
lines.push('\r\r\r');
lines.push(
  'Traceback (most recent call last):',
  '  File "a.py", line 2',
  'RuntimeError: NCCL timeout (ncclRemoteError)',
  'after',
);
// A line longer than the record cap, then more steps with the first layout.
lines.push('x'.repeat((1 << 20) + 100));
for (let i = 0; i < 3; i++)
  step(
    ++g,
    keysA(40).map((k) => [k, sci(rand())]),
  );
lines.push(rec(stamp(g), 'Trainer', 'INFO', 'Training completes!'));
// A table cut by the end of the input.
step(
  ++g,
  keysA(40).map((k) => [k, '1.0000e+00']),
);
lines.splice(lines.length - 3);
const text = lines.join('\n');
// Latin1 for the deliberate invalid bytes, UTF-8 for everything else.
const chunks = text.split(/(\xff\xfe garbage \x00\x01 \x80\x81)/);
process.stdout.write(Buffer.concat(chunks.map((c, i) => Buffer.from(c, i % 2 ? 'latin1' : 'utf8'))));
