// allocation_mode, as areal/api/alloc_mode.py parses it: components joined by `+` (separate GPUs)
// or `|` (colocated; binds tighter). A component is `backend[name]:dims`, `backend:dims`,
// `[name]:dims` or bare dims. GPUs = d·c·t·p; colocated members after the first use none.

export interface AllocationComponent {
  backend: string | null;
  name: string | null;
  dims: Record<string, number>;
  gpus: number;
}
export type AllocationParse =
  | { ok: true; components: AllocationComponent[]; totalGpus: number; actorDp: number | null }
  | { ok: false; message: string; col: number };

const INFERENCE = new Set(['sglang', 'vllm']);
const TRAINING = new Set(['fsdp', 'megatron', 'archon']);

const fail = (message: string, col: number): AllocationParse => ({ ok: false, message, col });

export function parseAllocationMode(input: string): AllocationParse {
  // The Lark grammar ignores whitespace between tokens, but a space cannot split a token: a
  // number (`d4 8`), a backend (`fs dp`) or a name (`[roll out]`) with a space in it is refused.
  const split = /[A-Za-z_][ \t\f\r\n]+[A-Za-z_]|\d[ \t\f\r\n]+\d/.exec(input);
  if (split)
    return fail(
      `a space inside '${split[0].replace(/\s+/, ' ')}' splits a backend, name or number; remove it`,
      split.index + 2,
    );
  // Lark's common.WS is [ \t\f\r\n]: any other character (a no-break space…) is a parse error.
  const odd = /[^ \t\f\r\n\x21-\x7e]/.exec(input);
  if (odd)
    return fail(
      `character U+${odd[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} is not allowed in allocation_mode; use plain ASCII, e.g. sglang[rollout]:d4+fsdp[actor]:d4`,
      odd.index + 1,
    );
  const s = input.replace(/[ \t\f\r\n]+/g, '');
  if (s === '') return fail('allocation_mode is empty; e.g. sglang[rollout]:d4+fsdp[actor]:d4', 1);
  const old =
    /^(sglang|vllm|fsdp|megatron|archon)\.([a-z]\d+)/.exec(s) ?? /\+(sglang|vllm|fsdp|megatron|archon)\./.exec(s);
  if (old) {
    return fail(
      `the old dot form '${s}' is no longer accepted: write backend:dims, e.g. ${s.replace(/(sglang|vllm|fsdp|megatron|archon)\./g, '$1:')}`,
      (old.index ?? 0) + 1,
    );
  }
  const components: AllocationComponent[] = [];
  let total = 0;
  let pos = 0;
  const groups = splitTop(s, '+');
  for (const group of groups) {
    let inGroup = 0;
    let off = pos;
    let anchor: AllocationComponent | null = null;
    for (const part of splitTop(group, '|')) {
      const r = parseComponent(part, off);
      if ('message' in r) return fail(r.message, r.col);
      if (inGroup > 0) {
        if (!r.name)
          return fail(
            `'${part}' is colocated ('|') with '${anchor!.name ?? 'the first component'}' and needs a name, e.g. fsdp[critic]:d4`,
            off + 1,
          );
        if (r.gpus !== anchor!.gpus)
          return fail(
            `colocated components must have matching world sizes: '${anchor!.name}' has ${anchor!.gpus}, '${r.name}' has ${r.gpus}`,
            off + 1,
          );
      }
      const gpus: number = inGroup === 0 ? r.gpus : 0;
      const c: AllocationComponent = { backend: r.backend, name: r.name, dims: r.dims, gpus };
      if (inGroup === 0) anchor = { ...c };
      components.push(c);
      total += gpus;
      inGroup++;
      off += part.length + 1;
    }
    pos += group.length + 1;
  }
  // These two checks belong to the '+' chain (disaggregate_chain): a lone '|' group skips them.
  const chain = groups.length > 1;
  if (chain && components.length >= 3 && components.some((c) => !c.name))
    return fail(
      `with ${components.length} components every component needs a name, e.g. sglang[rollout]:d4+fsdp[actor]:d4+fsdp[critic]:d4`,
      1,
    );
  if (
    chain &&
    components.filter((c) => c.backend === null && !c.name).length > 0 &&
    components.filter((c) => c.backend === null).length > 1
  )
    return fail('several training components without a backend need names, e.g. [actor]:d4+[critic]:d4', 1);
  const seen = new Set<string>();
  for (const c of components) {
    if (c.name && seen.has(c.name))
      return fail(
        `component name '${c.name}' is used twice; names must be unique`,
        s.indexOf(`[${c.name}]`, s.indexOf(`[${c.name}]`) + 1) + 1,
      );
    if (c.name) seen.add(c.name);
  }
  // The trainer sizes the batch with `allocation_mode.train.data_parallel_size`: a TRAINING
  // component (an inference one named 'actor' does not count).
  const training = components.filter((c) => c.backend === null || TRAINING.has(c.backend));
  const actor = training.find((c) => c.name === 'actor') ?? training[0];
  return { ok: true, components, totalGpus: total, actorDp: actor ? (actor.dims.d ?? 1) : null };
}

/** Split on `sep` outside parentheses (the hybrid MoE form `(attn:…|ffn:…)` contains a '|'). */
function splitTop(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    if (s[i] === ')') depth--;
    // `attn:…|ffn:…` without parentheses is one hybrid MoE component, not a colocation.
    if (s[i] === sep && depth === 0 && !(sep === '|' && s.startsWith('ffn:', i + 1))) {
      out.push(s.slice(from, i));
      from = i + 1;
    }
  }
  out.push(s.slice(from));
  return out;
}

/** Megatron's hybrid MoE form: `(attn:d4t2|ffn:e4t2)`; GPUs come from the attention section. */
function parseHybrid(
  text: string,
  backend: string | null,
  off: number,
): AllocationComponent | { message: string; col: number } | null {
  const m = /^\(?attn:((?:[a-z][1-9][0-9]*)+)\|ffn:((?:[a-z][1-9][0-9]*)+)\)?$/.exec(text);
  if (!m)
    return text.includes('attn:')
      ? { message: `bad hybrid MoE form '${text}'; e.g. (attn:d4t2|ffn:e4t2)`, col: off + 1 }
      : null;
  const dims: Record<string, number> = {};
  for (const [, k, v] of m[1].matchAll(/([a-z])([1-9][0-9]*)/g)) dims[k] = Number(v);
  return {
    backend: backend ?? 'megatron',
    name: null,
    dims,
    gpus: (dims.d ?? 1) * (dims.c ?? 1) * (dims.t ?? 1) * (dims.p ?? 1),
  };
}

function parseComponent(text: string, off: number): AllocationComponent | { message: string; col: number } {
  const hybrid = parseHybrid(
    text.replace(/^(fsdp|megatron|archon):/, ''),
    /^(fsdp|megatron|archon):/.exec(text)?.[1] ?? null,
    off,
  );
  if (hybrid) return hybrid;
  const m = /^(?:([A-Za-z_][A-Za-z0-9_]*)?(?:\[([A-Za-z_][A-Za-z0-9_]*)\])?:)?(.*)$/.exec(text)!;
  const [whole, backend = null, name = null, dimsText] = m;
  // NAME is /[a-zA-Z_][a-zA-Z0-9_]*/ in the grammar: say so rather than 'bad dimensions'.
  const bracket = /^([A-Za-z_][A-Za-z0-9_]*)?\[([^\]]*)\]/.exec(text);
  if (bracket && name === null) {
    const why = bracket[2] === '' ? 'is empty' : `'${bracket[2]}' is not a valid name`;
    const after = text.slice(bracket[0].length);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(bracket[2]))
      return {
        message: `the component name in '${text}' ${why}: a letter or _ then letters, digits or _ (e.g. [rollout])`,
        col: off + (bracket[1]?.length ?? 0) + 2,
      };
    if (!after.startsWith(':'))
      return { message: `'${text}' needs ':' after the name, e.g. ${bracket[0]}:d4`, col: off + bracket[0].length + 1 };
  }
  // Bare dims have no colon: `:d4` matches no rule of the grammar.
  if (backend === null && name === null && whole.length > dimsText.length)
    return {
      message: `'${text}' starts with ':'; write backend:dims (fsdp:d4), [name]:dims or bare dims (d4)`,
      col: off + 1,
    };
  if (backend !== null && !INFERENCE.has(backend) && !TRAINING.has(backend))
    return {
      message: `unknown backend '${backend}': use sglang or vllm (inference), fsdp, megatron or archon (training)`,
      col: off + 1,
    };
  const dimsAt = off + text.length - dimsText.length;
  if (dimsText === '') return { message: `component '${text}' has no dimensions; e.g. d4 or d2t2`, col: dimsAt + 1 };
  const allowed = backend && INFERENCE.has(backend) ? 'dtp' : 'dtpce';
  const dims: Record<string, number> = {};
  const re = /([a-z])([1-9][0-9]*)/y;
  let i = 0;
  while (i < dimsText.length) {
    re.lastIndex = i;
    const d = re.exec(dimsText);
    if (!d) {
      return {
        message: `bad dimensions '${dimsText}' at '${dimsText.slice(i)}': each is a letter (${allowed.split('').join(' ')}) then a positive integer without leading zero`,
        col: dimsAt + i + 1,
      };
    }
    if (!allowed.includes(d[1]))
      return {
        message: `dimension '${d[1]}' is not valid for ${backend ?? 'a training component'}; use ${allowed.split('').join(', ')}`,
        col: dimsAt + i + 1,
      };
    // A repeated dimension is accepted by the trainer; the last one wins.
    dims[d[1]] = Number(d[2]);
    i = re.lastIndex;
  }
  if (backend === 'fsdp' && ((dims.p ?? 1) > 1 || (dims.e ?? 1) > 1))
    return {
      message: `FSDP supports only data/tensor/context parallelism (d, t, c); use megatron for p or e in '${text}'`,
      col: off + 1,
    };
  const gpus = (dims.d ?? 1) * (dims.c ?? 1) * (dims.t ?? 1) * (dims.p ?? 1);
  const e = dims.e ?? 1;
  if (e > 1 && gpus % ((dims.p ?? 1) * e) !== 0)
    return {
      message: `expert parallel size ${(dims.p ?? 1) * e} (p·e) cannot divide world size ${gpus} in '${text}'`,
      col: off + 1,
    };
  return { backend, name, dims, gpus };
}
