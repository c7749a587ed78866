// Where the run writes: cluster.fileroot must be writable with room for recover checkpoints, and an
// existing recover checkpoint for this experiment+trial means the launch resumes instead of starting.
import { cfg, formatBytes, type PreflightInput } from './input.js';
import type { CheckResult } from './types.js';

/**
 * Bytes per parameter of one recover checkpoint: bf16 weights plus Adam's two moments kept in the
 * parameter dtype (2 + 2 + 2). Calibrated on the reference config's own figure: "~50GB total for 8B
 * BF16 + Adam" → 8e9 × 6 = 48 GB.
 */
export const CHECKPOINT_BYTES_PER_PARAM = 6;

const DTYPE_BYTES: Record<string, number> = { bfloat16: 2, float16: 2, float32: 4 };

/** Parameters of the model: from the weights' size on disk, else config.json, else its name ("…-8B-…"). */
export function estimateParams(model: {
  path: string;
  configJson: string | null;
  safetensorsBytes: number | null;
}): { params: number; from: string } | null {
  let dtypeBytes = 2;
  let cfgJson: any = null;
  try {
    cfgJson = model.configJson ? JSON.parse(model.configJson) : null;
  } catch {
    cfgJson = null;
  }
  const dt = cfgJson?.torch_dtype ?? cfgJson?.dtype ?? cfgJson?.text_config?.torch_dtype;
  if (typeof dt === 'string' && DTYPE_BYTES[dt]) dtypeBytes = DTYPE_BYTES[dt];
  if (model.safetensorsBytes && model.safetensorsBytes > 0) {
    return { params: model.safetensorsBytes / dtypeBytes, from: 'the safetensors index' };
  }
  const n = cfgJson?.num_parameters ?? cfgJson?.n_params;
  if (typeof n === 'number' && n > 0) return { params: n, from: 'config.json' };
  const name = model.path.replace(/\/+$/, '').split('/').pop() ?? '';
  const m = /(?:^|[-_])(\d+(?:\.\d+)?)([bBmM])(?=$|[-_])/.exec(name);
  if (m) return { params: Number(m[1]) * (m[2].toLowerCase() === 'b' ? 1e9 : 1e6), from: `the model name ${name}` };
  return null;
}

export function checkFileroot(input: PreflightInput): CheckResult {
  const { facts: f } = input;
  const r = f.fileroot;
  if (!r.writable) {
    return {
      id: 'fileroot',
      result: 'error',
      seen: `cluster.fileroot ${r.path}: cannot write to ${r.testedDir || '(no existing parent)'} as ${f.user}`,
      todo: 'Choose a cluster.fileroot on a shared filesystem this user can write (logs, checkpoints and name resolution go there).',
    };
  }
  const where = r.exists ? r.path : `${r.path} (will be created under ${r.testedDir})`;
  const est = estimateParams(f.model);
  if (r.availKB === null) {
    return {
      id: 'fileroot',
      result: 'warning',
      seen: `${where} is writable; free space unknown (df failed)`,
      todo: 'Check free space by hand: a recover checkpoint of an 8B model is ~50 GB.',
    };
  }
  const free = r.availKB * 1024;
  if (!est) {
    return {
      id: 'fileroot',
      result: 'ok',
      seen: `${where} is writable, ${formatBytes(free)} free (checkpoint size unknown)`,
      todo: '',
    };
  }
  const ckpt = est.params * CHECKPOINT_BYTES_PER_PARAM;
  const seen = `${where} is writable, ${formatBytes(free)} free; a recover checkpoint is ~${formatBytes(ckpt)} (${(est.params / 1e9).toFixed(1)}B params from ${est.from} × ${CHECKPOINT_BYTES_PER_PARAM} bytes for weights and Adam state)`;
  if (free < ckpt) {
    return {
      id: 'fileroot',
      result: 'error',
      seen,
      todo: `Free at least ${formatBytes(ckpt - free)} under ${r.testedDir} or move cluster.fileroot: the first recover checkpoint would fail to write.`,
    };
  }
  if (free < 2 * ckpt) {
    return {
      id: 'fileroot',
      result: 'warning',
      seen,
      todo: 'Room for one checkpoint only: the next one (or an HF export by the saver) needs as much again; free space before a long run.',
    };
  }
  return { id: 'fileroot', result: 'ok', seen, todo: '' };
}

export function checkResume(input: PreflightInput): CheckResult {
  const { facts: f, experimentName, trialName } = input;
  const run = `${experimentName}/${trialName}`;
  if (f.recover.content === null) {
    if (input.resuming) {
      return {
        id: 'resume',
        result: 'warning',
        seen: `no recover checkpoint for ${run}: this resume STARTS OVER from step 1`,
        todo: 'Expected if the run failed before its first recover checkpoint; otherwise check recover.freq_steps / recover.freq_secs and cluster.fileroot.',
      };
    }
    return { id: 'resume', result: 'ok', seen: `no recover checkpoint for ${run}: a fresh start`, todo: '' };
  }
  let g: number | null = null;
  let total = '';
  try {
    const j = JSON.parse(f.recover.content);
    if (typeof j.global_step === 'number') g = j.global_step;
    const spe = Number(j.steps_per_epoch);
    const epochs = Number(cfg(input.resolved, 'total_train_epochs'));
    if (spe > 0 && epochs > 0) total = ` of ${spe * epochs}`;
  } catch {
    g = null;
  }
  if (g === null) {
    return {
      id: 'resume',
      result: 'error',
      seen: `${f.recover.path} exists but is not a valid step_info.json`,
      todo: 'Inspect it: the trainer will fail to recover. Delete recover_info (losing the resume) or use a new trial_name.',
    };
  }
  // step_info.json holds the last completed step, 0-based: step N = global_step + 1 in the log's
  // 1-based numbering is done, and the trainer continues with step N + 1.
  const n = g + 1;
  return {
    id: 'resume',
    result: 'warning',
    seen: `this launch will RESUME from step ${n} (recover checkpoint of ${run} after step ${n}${total}; training continues at step ${n + 1})`,
    todo: `Intended? To start over instead, use a new trial_name (or delete ${f.recover.path.replace(/\/step_info\.json$/, '')}).`,
  };
}
