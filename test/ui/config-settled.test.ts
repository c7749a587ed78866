// The Config screen after a pre-flight: a config warning the target answered (a relative actor.path
// found there) no longer counts as a problem; it is shown dim as settled, naming the target.
import { describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/lines.js';
import { configLines } from '../../src/ui/screens/config.js';
import type { ConfigView, PreflightPhase } from '../../src/session/types.js';

const view: ConfigView = {
  fileName: 'c.yaml',
  overrides: [],
  hasErrors: false,
  diff: [],
  argv: ['python3'],
  target: 'gpu-head',
  draft: null,
  secrets: [],
  rows: [
    {
      key: 'actor.path',
      depth: 0,
      label: 'actor.path',
      value: 'models/qwen3-vl',
      type: 'string',
      origin: 'file:3',
      leaf: true,
    },
  ],
  diagnostics: [
    {
      severity: 'warning',
      code: 'hub-model-path',
      key: 'actor.path',
      message: "actor.path 'models/qwen3-vl' looks like a Hub id",
      where: 'c.yaml:3:9',
    },
    {
      severity: 'warning',
      code: 'vlm-cache',
      key: 'actor.scheduling_spec.0.env_vars',
      message: 'SGLANG_VLM_CACHE_SIZE_MB is unset',
      where: 'c.yaml:40:5',
    },
  ],
};
const done = (modelResult: 'ok' | 'warning'): PreflightPhase => ({
  phase: 'done',
  target: 'gpu-head',
  checks: [{ id: 'model', result: modelResult, seen: 'models/qwen3-vl (under /w) has config.json', todo: '' }],
  errors: 0,
  warnings: modelResult === 'ok' ? 0 : 1,
  blocked: false,
  reason: '',
  overrides: [],
});
const side = (p?: PreflightPhase) =>
  configLines(view, { cursor: 0, scroll: 0, editing: null, adding: null } as never, 140, 40, p)
    .right!.map(lineText)
    .join('\n');

describe('Config screen: warnings pre-flight settles', () => {
  it('before pre-flight: two warnings; after it found the model: one, and the Hub warning shown as settled', () => {
    expect(side()).toMatch(/Diagnostics.*0 errors, 2 warnings/);
    const after = side(done('ok'));
    expect(after).toMatch(/Diagnostics.*0 errors, 1 warning\b/);
    expect(after.replace(/\n {6}/g, ' ')).toMatch(
      /ok {4}actor\.path: found on gpu-head by pre-flight \(hub-model-path does not apply\)/,
    );
    expect(after).toContain('SGLANG_VLM_CACHE_SIZE_MB is unset');
    expect(after).not.toContain('looks like a Hub id');
  });

  it('a pre-flight that did not find it leaves the warning as it was', () => {
    const after = side(done('warning'));
    expect(after).toMatch(/Diagnostics.*0 errors, 2 warnings/);
    expect(after).toContain('looks like a Hub id');
  });
});
