// The zod schema derived from the dataclass description accepts the resolved reference config
// and rejects what the trainer rejects.
import { describe, expect, it } from 'vitest';
import { webGymConfigSchema } from '../../src/config/schema/zod.js';
import { evaluate, REFERENCE } from './helpers.js';

describe('webGymConfigSchema', () => {
  const resolved = evaluate(REFERENCE).resolved!;
  it('accepts the resolved reference config', () => {
    expect(webGymConfigSchema.safeParse(resolved).success).toBe(true);
  });
  it('rejects an unknown key, a float in an int field and a missing group field', () => {
    expect(webGymConfigSchema.safeParse({ ...resolved, actor: { ...resolved.actor, foo: 1 } }).success).toBe(false);
    expect(webGymConfigSchema.safeParse({ ...resolved, seed: 1.5 }).success).toBe(false);
    const { gconfig: _g, ...rest } = resolved;
    expect(webGymConfigSchema.safeParse(rest).success).toBe(false);
  });
  it('leaves webgym, openai_config and env_vars free-form', () => {
    expect(
      webGymConfigSchema.safeParse({ ...resolved, webgym: { anything: { deep: [1] } }, openai_config: { x: 1 } })
        .success,
    ).toBe(true);
  });
});
