// A zod schema derived from the dataclass description, for callers that want to validate a
// (Import it from here, not from index.ts: zod costs ~0.3 s to load and `config check` does not need it.)
// resolved config (plain JSON) without the engine: e.g. the simulator's own configs.
import { z } from 'zod';
import type { Field } from './dsl.js';
import { webGymConfig } from './experiment.js';

export function zodOf(f: Field): z.ZodTypeAny {
  let t: z.ZodTypeAny;
  switch (f.k) {
    case 'int':
      t = z.number().int();
      break;
    case 'float':
      t = z.number();
      break;
    case 'bool':
      t = z.boolean();
      break;
    case 'str':
      t = z.string();
      break;
    case 'any':
      t = z.any();
      break;
    case 'list':
      t = z.array(zodOf(f.of));
      break;
    case 'dict':
      t = z.record(z.string(), zodOf(f.of));
      break;
    case 'obj':
      t = z.strictObject(Object.fromEntries(Object.entries(f.fields).map(([k, sub]) => [k, zodOf(sub)])));
      break;
  }
  return f.opt ? t.nullable() : t;
}

/** The resolved AsyncWebRL (WebGymConfig) config: unknown keys rejected, types exact. */
export const webGymConfigSchema = zodOf(webGymConfig);
