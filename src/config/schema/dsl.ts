// A small description language for the trainer's dataclasses: field type, Optional-ness and
// default. The merge (coerce.ts) walks it; zod.ts derives a zod schema from it.

export const MISSING = Symbol('MISSING'); // OmegaConf's '???': must be set before the run starts

export type Default = unknown; // a plain value, null, or MISSING

export type Field =
  | { k: 'int' | 'float' | 'bool' | 'str' | 'any'; opt: boolean; d: Default }
  | { k: 'list'; of: Field; opt: boolean; d: Default }
  | { k: 'dict'; of: Field; opt: boolean; d: Default } // free-form keys
  | { k: 'obj'; name: string; fields: Record<string, Field>; opt: boolean; d: 'object' | null };

export const int = (d: Default = MISSING): Field => ({ k: 'int', opt: false, d });
export const float = (d: Default = MISSING): Field => ({ k: 'float', opt: false, d });
export const bool = (d: Default = MISSING): Field => ({ k: 'bool', opt: false, d });
export const str = (d: Default = MISSING): Field => ({ k: 'str', opt: false, d });
export const any = (d: Default = null): Field => ({ k: 'any', opt: true, d });
export const list = (of: Field, d: Default = []): Field => ({ k: 'list', of, opt: false, d });
export const dict = (of: Field = any(), d: Default = {}): Field => ({ k: 'dict', of, opt: false, d });
/** A nested dataclass built with its defaults (`field(default_factory=X)`). */
export const obj = (name: string, fields: Record<string, Field>): Field => ({
  k: 'obj',
  name,
  fields,
  opt: false,
  d: 'object',
});
/** `X | None = None`. */
export const opt = (f: Field, d?: Default): Field =>
  f.k === 'obj'
    ? { ...f, opt: true, d: d === undefined ? null : (d as 'object') }
    : { ...f, opt: true, d: d === undefined ? null : d };
