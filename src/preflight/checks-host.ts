// The checkout, Python, the setup line, the model and the datasets: what the trainer opens first.
import { looksLikeHubId } from '../config/index.js';
import { cfg, type PreflightInput } from './input.js';
import type { CheckResult } from './types.js';

const firstLine = (s: string): string => s.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '';

export function checkCheckout({ facts: f, target }: PreflightInput): CheckResult {
  const w = f.workdir;
  if (!w.exists) {
    return {
      id: 'checkout',
      result: 'error',
      seen: `${w.path} does not exist on ${f.host}`,
      todo: `Clone the AsyncWebRL checkout (github.com/microsoft/webgym, branch async) to ${w.path} or give the right --workdir for target '${target.name}'.`,
    };
  }
  if (!w.trainPy) {
    return {
      id: 'checkout',
      result: 'error',
      seen: `${w.path} exists but has no webgym/train.py`,
      todo: 'Point --workdir at the root of the AsyncWebRL checkout (the directory that holds webgym/train.py).',
    };
  }
  return { id: 'checkout', result: 'ok', seen: `${w.path} has webgym/train.py (on ${f.host} as ${f.user})`, todo: '' };
}

export function checkSetup({ facts: f }: PreflightInput): CheckResult {
  if (!f.setup.given) return { id: 'setup', result: 'ok', seen: 'no setup line', todo: '' };
  if (f.setup.ok) return { id: 'setup', result: 'ok', seen: 'the setup line runs (exit 0)', todo: '' };
  if (f.setup.timedOut)
    return {
      id: 'setup',
      result: 'error',
      seen: `the setup line ${f.setup.out}`,
      todo: 'Run the setup line by hand on the target: it waits for something (a stuck NFS mount, a module or conda that hangs). The trainer runs after it.',
    };
  return {
    id: 'setup',
    result: 'error',
    seen: `the setup line failed with exit ${f.setup.rc}${firstLine(f.setup.out) ? `: ${firstLine(f.setup.out)}` : ''}`,
    todo: "Fix the target's setup line (e.g. the conda environment name or module); the trainer runs after it.",
  };
}

export function checkPython({ facts: f }: PreflightInput): CheckResult {
  const p = f.python;
  if (p.ok) return { id: 'python', result: 'ok', seen: `${p.command} is Python ${p.out.trim()}`, todo: '' };
  const why = p.rc === 127 ? 'not found' : `exit ${p.rc}${firstLine(p.out) ? `: ${firstLine(p.out)}` : ''}`;
  return {
    id: 'python',
    result: 'error',
    seen: `${p.command} does not run (${why})${f.setup.given ? ' after the setup line' : ''}`,
    todo: "Give the Python of the trainer's environment with --python, or a setup line that activates it.",
  };
}

export function checkModel({ facts: f, resolved, target }: PreflightInput): CheckResult {
  const path = String(cfg(resolved, 'actor.path') ?? '');
  const m = f.model;
  // The trainer runs in the workdir, so a relative actor.path is a directory under it; the probe
  // looks there. Only when nothing is there is `models/qwen3-vl` or `Qwen/…` read as a Hub id.
  const relative = !path.startsWith('/');
  const where = relative && path ? `${path} (under ${target.workdir})` : path;
  if (!m.exists) {
    if (looksLikeHubId(path)) {
      return {
        id: 'model',
        result: 'warning',
        seen: `actor.path '${path}' is a Hub id: no such directory under ${target.workdir} on ${f.host}`,
        todo: `SGLang on shared-GPU nodes produces garbage with Hub paths: download it once (huggingface-cli download ${path} --local-dir DIR) to a shared path and set actor.path to that directory.`,
      };
    }
    return {
      id: 'model',
      result: 'error',
      seen: `actor.path ${where} does not exist on ${f.host}`,
      todo: `Put the model there (e.g. huggingface-cli download Qwen/Qwen3-VL-8B-Instruct --local-dir ${path}) or fix actor.path.`,
    };
  }
  if (!m.isDir || m.configJson === null) {
    return {
      id: 'model',
      result: 'error',
      seen: `actor.path ${where} has no config.json`,
      todo: 'actor.path must be a Hugging Face model directory (config.json, tokenizer, *.safetensors).',
    };
  }
  let arch = '';
  try {
    const j = JSON.parse(m.configJson);
    const a = Array.isArray(j.architectures) ? j.architectures[0] : j.model_type;
    if (typeof a === 'string') arch = ` (${a})`;
  } catch {
    return {
      id: 'model',
      result: 'error',
      seen: `${path}/config.json is not valid JSON`,
      todo: 'Re-download the model: its config.json is damaged or truncated.',
    };
  }
  return { id: 'model', result: 'ok', seen: `${where} has config.json${arch}`, todo: '' };
}

export function checkDatasets({ facts: f, resolved, target }: PreflightInput): CheckResult[] {
  const out: CheckResult[] = [];
  const epochs = Number(cfg(resolved, 'total_train_epochs'));
  for (const [group, label] of [
    ['train_dataset', 'train'],
    ['valid_dataset', 'valid'],
  ] as const) {
    const path = cfg(resolved, `${group}.path`);
    if (typeof path !== 'string' || path === '') continue;
    const id = `dataset:${label}`;
    const d = f.datasets.find((x) => x.path === path);
    if (!d || !d.exists) {
      // Relative paths are looked up from the workdir, the trainer's working directory.
      const where = path.startsWith('/') ? path : `${path} (under ${target.workdir})`;
      out.push({
        id,
        result: 'error',
        seen: `${group}.path ${where} does not exist on ${f.host}`,
        todo: `Place the WebGym ${label} tasks (Hugging Face dataset microsoft/webgym_tasks, ${label === 'train' ? 'train' : 'test'}.jsonl) at ${path} or fix ${group}.path.`,
      });
      continue;
    }
    const lines = d.lines ?? 0;
    const bs = Number(cfg(resolved, `${group}.batch_size`));
    if (lines === 0) {
      out.push({
        id,
        result: 'error',
        seen: `${path} is empty`,
        todo: `Fill ${path} with the WebGym tasks (one JSON object per line).`,
      });
      continue;
    }
    if (!(bs > 0)) {
      out.push({ id, result: 'ok', seen: `${path}: ${lines} lines`, todo: '' });
      continue;
    }
    // The data loader drops the last partial batch: steps per epoch = floor(lines / batch_size).
    const perEpoch = Math.floor(lines / bs);
    if (perEpoch === 0) {
      out.push({
        id,
        result: 'error',
        seen: `${path}: ${lines} lines < ${group}.batch_size ${bs}: not one full batch`,
        todo: `Use a larger dataset or a ${group}.batch_size ≤ ${lines}.`,
      });
      continue;
    }
    const total = label === 'train' && epochs > 0 ? `; × ${epochs} epochs = ${perEpoch * epochs} steps` : '';
    out.push({
      id,
      result: 'ok',
      seen: `${path}: ${lines} lines ÷ batch_size ${bs} = ${perEpoch} steps per epoch${total}`,
      todo: '',
    });
  }
  return out;
}
