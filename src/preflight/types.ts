// Shapes shared by the probe (I/O over a Transport) and the pure evaluation of what it found.

/** One pre-flight check as the user reads it. */
export interface CheckResult {
  id: string;
  result: 'ok' | 'warning' | 'error';
  /** What was found on the target, in plain words with numbers. */
  seen: string;
  /** What to do about it; empty when there is nothing to do. */
  todo: string;
}

export interface ProbeCommandResult {
  ok: boolean;
  /** Exit status of the command (127: not found). */
  rc: number;
  /** stdout+stderr, capped by the probe. */
  out: string;
}

export interface GpuNodeFacts {
  /** '' for the head (where the probe runs), else the host name it was asked over ssh. */
  node: string;
  /** nvidia-smi --query-gpu=index,uuid,name,memory.used,memory.total --format=csv,noheader,nounits */
  gpus: ProbeCommandResult;
  /** nvidia-smi --query-compute-apps=pid,gpu_uuid,used_memory,process_name --format=csv,noheader,nounits */
  apps: ProbeCommandResult;
}

export interface ProcessFacts {
  pid: number;
  /** AWRL_RUN_ID from /proc/PID/environ; null when absent, '?' when unreadable (another user). */
  runId: string | null;
  user: string;
  cmd: string;
}

/** Everything the probe script found, as JSON from the target. */
export interface ProbeFacts {
  host: string;
  user: string;
  workdir: { path: string; exists: boolean; trainPy: boolean };
  /** `timedOut`: it did not finish within the probe's step limit (and was stopped). */
  setup: { given: boolean; timedOut?: boolean } & ProbeCommandResult;
  python: { command: string } & ProbeCommandResult;
  model: {
    path: string;
    exists: boolean;
    isDir: boolean;
    /** config.json text (capped), null when missing. */
    configJson: string | null;
    /** `metadata.total_size` of model.safetensors.index.json (bytes of weights), null when absent. */
    safetensorsBytes: number | null;
  };
  datasets: { path: string; exists: boolean; lines: number | null }[];
  gpuNodes: GpuNodeFacts[];
  /** The head node's GPU processes with their run tags. */
  processes: ProcessFacts[];
  fileroot: {
    path: string;
    exists: boolean;
    /** The directory that was tested (fileroot, or its nearest existing ancestor). */
    testedDir: string;
    writable: boolean;
    /** `df -P` available KiB on testedDir; null when df failed. */
    availKB: number | null;
  };
  recover: { path: string; content: string | null };
  slurm: {
    asked: boolean;
    /** `sinfo -h -o '%P|%a|%l|%D|%G'` */
    sinfo: ProbeCommandResult;
    /** `sbatch --test-only …` with the generated script on stdin. */
    testOnly: ProbeCommandResult;
    /** The node list `sbatch --test-only` named (`n[1-4]`), '' when none; absent from older probes. */
    testNodeList?: string;
    /** Those nodes' GPUs and GPU processes, asked over ssh from the head. */
    testNodes?: GpuNodeFacts[];
  };
}
