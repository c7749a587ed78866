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

export function parseAllocationMode(s: string): AllocationParse {
  if (s.trim() === '') return fail('allocation_mode is empty; e.g. sglang[rollout]:d4+fsdp[actor]:d4', 1);
  const old = /^(sglang|vllm|fsdp|megatron|archon)\.([a-z]\d+)/.exec(s) ?? /\+(sglang|vllm|fsdp|megatron|archon)\./.exec(s);
  if (old) {
    return fail(`the old dot form '${s}' is no longer accepted: write backend:dims, e.g. ${s.replace(/(sglang|vllm|fsdp|megatron|archon)\./g, '$1:')}`, (old.index ?? 0) + 1);
  }
  const components: AllocationComponent[] = [];
  let total = 0;
  let pos = 0;
  for (const group of s.split('+')) {
    const groupStart = pos;
    let inGroup = 0;
    let off = groupStart;
    for (const part of group.split('|')) {
      const r = parseComponent(part, off);
      if ('message' in r) return fail(r.message, r.col);
      const gpus = inGroup === 0 ? r.gpus : 0;
      components.push({ ...r, gpus });
      total += gpus;
      inGroup++;
      off += part.length + 1;
    }
    pos += group.length + 1;
  }
  if (components.length >= 3 || s.includes('|')) {
    const unnamed = components.find((c) => !c.name);
    if (unnamed) return fail(`with ${components.length} components (or '|' colocation) every component needs a name, e.g. fsdp[actor]:d4`, 1);
  }
  const seen = new Set<string>();
  for (const c of components) {
    if (c.name && seen.has(c.name)) return fail(`component name '${c.name}' is used twice; names must be unique`, s.indexOf(`[${c.name}]`, s.indexOf(`[${c.name}]`) + 1) + 1);
    if (c.name) seen.add(c.name);
  }
  const training = components.filter((c) => c.backend === null || TRAINING.has(c.backend));
  const actor = components.find((c) => c.name === 'actor') ?? training[0];
  return { ok: true, components, totalGpus: total, actorDp: actor ? (actor.dims.d ?? 1) : null };
}

function parseComponent(text: string, off: number): Omit<AllocationComponent, 'gpus'> & { gpus: number } | { message: string; col: number } {
  const m = /^(?:([A-Za-z_][A-Za-z0-9_]*)?(?:\[([A-Za-z0-9_-]+)\])?:)?(.*)$/.exec(text)!;
  const [, backend = null, name = null, dimsText] = m;
  if (backend !== null && !INFERENCE.has(backend) && !TRAINING.has(backend))
    return { message: `unknown backend '${backend}': use sglang or vllm (inference), fsdp, megatron or archon (training)`, col: off + 1 };
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
      return { message: `bad dimensions '${dimsText}' at '${dimsText.slice(i)}': each is a letter (${allowed.split('').join(' ')}) then a positive integer without leading zero`, col: dimsAt + i + 1 };
    }
    if (!allowed.includes(d[1]))
      return { message: `dimension '${d[1]}' is not valid for ${backend ?? 'a training component'}; use ${allowed.split('').join(', ')}`, col: dimsAt + i + 1 };
    if (d[1] in dims) return { message: `dimension '${d[1]}' is given twice in '${dimsText}'`, col: dimsAt + i + 1 };
    dims[d[1]] = Number(d[2]);
    i = re.lastIndex;
  }
  if (backend === 'fsdp' && ((dims.p ?? 1) > 1 || (dims.e ?? 1) > 1))
    return { message: `FSDP supports only data/tensor/context parallelism (d, t, c); use megatron for p or e in '${text}'`, col: off + 1 };
  const gpus = (dims.d ?? 1) * (dims.c ?? 1) * (dims.t ?? 1) * (dims.p ?? 1);
  return { backend, name, dims, gpus };
}
