// Targets: where a run goes (an SSH host or `local`) and how it is started there. Named targets live
// in a profile file ($XDG_CONFIG_HOME/awrl-tui/targets.yaml); every field can also come from the
// command line. Pure: callers read the file and pass its text.
import { LineCounter, parseDocument, isNode } from 'yaml';
import { z } from 'zod';
import { shellQuote } from '../remote/quote.js';
import { DEFAULT_SETUP_LIMIT_S, withSetupLimit } from './setup-limit.js';
import { CODEC_CHOICES, SSH_CLIENTS, type CodecChoice, type SshClientChoice } from '../remote/options.js';

export type Backend = 'direct' | 'slurm';

export interface SlurmOptions {
  partition?: string;
  /** Nodes per job; default: the config's cluster.n_nodes. */
  nodes?: number;
  /** GPUs per node (`--gpus-per-node`); omitted when unset (CPU-only test clusters). */
  gpusPerNode?: number;
  cpusPerTask?: number;
  /** sbatch `--time` (e.g. `2-00:00:00`, `60`). */
  timeLimit?: string;
  account?: string;
  /** Extra sbatch arguments, passed as separate argv words. */
  extraArgs: string[];
}

export interface Target {
  /** The profile name, or the host spec when given directly. */
  name: string;
  /** `local`, an ssh alias, or `user@host[:port]`. */
  host: string;
  /** ssh `-F` file. */
  sshConfigFile?: string;
  /** The AsyncWebRL checkout on the target; runs go to `<workdir>/.awrl/runs/<run-id>/`. */
  workdir: string;
  python: string;
  /** A shell line run before the trainer (e.g. `source ~/miniconda3/bin/activate awrl`). */
  setup?: string;
  /** How long the setup line (and each pre-flight step) may take there, in seconds (default 60:
   *  setup-limit.ts); `setup_timeout` / `--setup-timeout`. */
  setupTimeoutS?: number;
  backend: Backend;
  slurm: SlurmOptions;
  /** Environment variable names to forward IN ADDITION to the ones the config needs (required). */
  forwardEnv?: string[];
  /** `--no-forward-env`: names taken out of that set, loudly (forwarding.ts). */
  noForwardEnv?: string[];
  /** How a long log's history crosses the wire (`backlog_codec`; default `auto`): `zstd` for a
   *  link slower than ~90 Mbit/s (src/remote/README.md). */
  backlogCodec?: CodecChoice;
  /** Notification channel URLs (`notify:`, src/notify): they stay on this machine, never sent to the target. */
  notify?: string[];
  /** Which ssh client (`ssh`, `--ssh`; default `auto`: the user's OpenSSH where a ControlPath is set). */
  sshClient?: SshClientChoice;
}

const slurmSchema = z
  .object({
    partition: z.string().min(1).optional(),
    nodes: z.number().int().positive().optional(),
    gpus_per_node: z.number().int().nonnegative().optional(),
    cpus_per_task: z.number().int().positive().optional(),
    time_limit: z.union([z.string().min(1), z.number().int().positive()]).optional(),
    account: z.string().min(1).optional(),
    extra_args: z.array(z.string()).optional(),
  })
  .strict();

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'not an environment variable name');

const targetSchema = z
  .object({
    host: z.string().min(1),
    ssh_config: z.string().min(1).optional(),
    workdir: z.string().min(1),
    python: z.string().min(1).optional(),
    setup: z.string().optional(),
    setup_timeout: z.number().int().positive().optional(),
    backend: z.enum(['direct', 'slurm']).optional(),
    slurm: slurmSchema.optional(),
    forward_env: z.array(envName).optional(),
    backlog_codec: z.enum(CODEC_CHOICES).optional(),
    notify: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    ssh: z.enum(SSH_CLIENTS).optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    const why = workdirProblem(t.host, t.workdir);
    if (why) ctx.addIssue({ code: 'custom', path: ['workdir'], message: why });
  });

/** Why a workdir cannot work on `host`, or null. Nothing on the way expands `~` (scripts quote the
 *  path, SFTP takes it literally), and a relative path would mean one place to SFTP and another to
 *  the scripts: the checkout would be reported missing, which misleads. */
function workdirProblem(host: string, workdir: string): string | null {
  if (workdir.startsWith('~') || (host !== 'local' && !workdir.startsWith('/'))) {
    return `'${workdir}' must be an absolute path on the target (~ and relative paths are not expanded there): e.g. /home/<user>/AsyncWebRL`;
  }
  return null;
}

const fileSchema = z.object({ targets: z.record(z.string(), targetSchema) }).strict();

/** A problem in the profile file, already formatted as `file:line: key: message`. */
export class TargetsFileError extends Error {
  override name = 'TargetsFileError';
}

/** Parses a targets.yaml text; throws TargetsFileError naming file, line and key. */
export function loadTargets(text: string, fileName: string): Record<string, Target> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const lineOf = (offset: number | undefined) => (offset === undefined ? 1 : lineCounter.linePos(offset).line);
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new TargetsFileError(`${fileName}:${lineOf(e.pos[0])}: ${e.message.split('\n')[0]}`);
  }
  const parsed = fileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    // An unknown key (a typo) explains the "missing" errors that come with it: report it first.
    const issues = parsed.error.issues;
    const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0];
    const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
    const focus = issue.code === 'unrecognized_keys' ? [...path, issue.keys[0]] : path;
    // Point at the deepest node that exists on the path (a missing key: its parent).
    let line = 1;
    for (let n = focus.length; n >= 0; n--) {
      const node = doc.getIn(focus.slice(0, n), true);
      if (isNode(node)) {
        line = lineOf(node.range?.[0]);
        break;
      }
    }
    const key = path.length > 0 ? path.join('.') : '(top level)';
    const missing = issue.code === 'invalid_type' && doc.getIn(path) === undefined;
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
        : missing
          ? 'missing (required)'
          : issue.message;
    throw new TargetsFileError(`${fileName}:${line}: ${key}: ${message}`);
  }
  const out: Record<string, Target> = {};
  for (const [name, t] of Object.entries(parsed.data.targets)) {
    out[name] = {
      name,
      host: t.host,
      sshConfigFile: t.ssh_config,
      workdir: t.workdir,
      python: t.python ?? 'python3',
      setup: t.setup,
      ...(t.setup_timeout ? { setupTimeoutS: t.setup_timeout } : {}),
      backend: t.backend ?? 'direct',
      slurm: {
        partition: t.slurm?.partition,
        nodes: t.slurm?.nodes,
        gpusPerNode: t.slurm?.gpus_per_node,
        cpusPerTask: t.slurm?.cpus_per_task,
        timeLimit: t.slurm?.time_limit === undefined ? undefined : String(t.slurm.time_limit),
        account: t.slurm?.account,
        extraArgs: t.slurm?.extra_args ?? [],
      },
      forwardEnv: t.forward_env,
      ...(t.backlog_codec ? { backlogCodec: t.backlog_codec } : {}),
      ...(t.notify ? { notify: typeof t.notify === 'string' ? t.notify.split(/\s+/).filter(Boolean) : t.notify } : {}),
      ...(t.ssh ? { sshClient: t.ssh } : {}),
    };
  }
  return out;
}

/** Command-line target fields; any given one overrides the profile's. */
export interface TargetFlags {
  target?: string;
  sshConfigFile?: string;
  workdir?: string;
  python?: string;
  setup?: string;
  setupTimeoutS?: number;
  backend?: string;
  partition?: string;
  nodes?: number;
  gpusPerNode?: number;
  cpusPerTask?: number;
  timeLimit?: string;
  account?: string;
  sbatchArgs?: string[];
  forwardEnv?: string[];
  noForwardEnv?: string[];
  sshClient?: string;
}

/** Profile (when `--target` names one) + flags -> a complete Target, or an error message. */
export function resolveTarget(flags: TargetFlags, profiles: Record<string, Target>): Target | string {
  if (!flags.target) return 'missing --target (a name from targets.yaml, `local`, an ssh alias or user@host[:port])';
  const base: Partial<Target> = profiles[flags.target] ?? { name: flags.target, host: flags.target };
  if (flags.sshClient !== undefined && !(SSH_CLIENTS as readonly string[]).includes(flags.sshClient)) {
    return `--ssh must be one of ${SSH_CLIENTS.join(', ')}, not '${flags.sshClient}'`;
  }
  if (flags.backend !== undefined && flags.backend !== 'direct' && flags.backend !== 'slurm') {
    return `--backend must be 'direct' or 'slurm', not '${flags.backend}'`;
  }
  for (const n of flags.forwardEnv ?? []) {
    if (!envName.safeParse(n).success) return `--forward-env '${n}' is not an environment variable name`;
  }
  for (const n of flags.noForwardEnv ?? []) {
    if (!envName.safeParse(n).success) return `--no-forward-env '${n}' is not an environment variable name`;
  }
  const workdir = flags.workdir ?? base.workdir;
  if (!workdir) {
    return `target '${flags.target}' has no workdir: give --workdir DIR (the AsyncWebRL checkout on it) or define it in targets.yaml`;
  }
  const bad = workdirProblem(base.host ?? flags.target, workdir);
  if (bad) return `workdir of target '${flags.target}': ${bad}`;
  const s = base.slurm ?? { extraArgs: [] };
  return {
    name: base.name ?? flags.target,
    host: base.host ?? flags.target,
    sshConfigFile: flags.sshConfigFile ?? base.sshConfigFile,
    workdir,
    python: flags.python ?? base.python ?? 'python3',
    setup: flags.setup ?? base.setup,
    ...((flags.setupTimeoutS ?? base.setupTimeoutS)
      ? { setupTimeoutS: flags.setupTimeoutS ?? base.setupTimeoutS }
      : {}),
    backend: (flags.backend as Backend | undefined) ?? base.backend ?? 'direct',
    slurm: {
      partition: flags.partition ?? s.partition,
      nodes: flags.nodes ?? s.nodes,
      gpusPerNode: flags.gpusPerNode ?? s.gpusPerNode,
      cpusPerTask: flags.cpusPerTask ?? s.cpusPerTask,
      timeLimit: flags.timeLimit ?? s.timeLimit,
      account: flags.account ?? s.account,
      extraArgs: [...s.extraArgs, ...(flags.sbatchArgs ?? [])],
    },
    // Both add to what the config needs: the profile's names and the command line's.
    ...(flags.forwardEnv || base.forwardEnv
      ? { forwardEnv: [...new Set([...(base.forwardEnv ?? []), ...(flags.forwardEnv ?? [])])] }
      : {}),
    ...(flags.noForwardEnv ? { noForwardEnv: flags.noForwardEnv } : {}),
    ...(base.backlogCodec ? { backlogCodec: base.backlogCodec } : {}),
    ...(base.notify ? { notify: base.notify } : {}),
    ...((flags.sshClient ?? base.sshClient)
      ? { sshClient: (flags.sshClient ?? base.sshClient) as SshClientChoice }
      : {}),
  };
}

/** Where the profile file lives: $XDG_CONFIG_HOME/awrl-tui/targets.yaml (default ~/.config). */
/**
 * The target's setup line as the remote scripts run it: in the workdir, wherever it runs (the
 * trainer's start, sbatch, squeue, scancel, the GPU poll), so `source ./env.sh` means the same
 * file everywhere; the script's own directory and the setup's exit status are kept. Lines, not
 * `;`: a setup line that ends in a comment must not swallow what follows. '' when there is none.
 */
export function setupInWorkdir(t: Pick<Target, 'setup' | 'workdir' | 'setupTimeoutS'>): string {
  if (!t.setup) return '';
  const line = `awrl_here=$PWD; cd ${shellQuote(t.workdir)} 2>/dev/null\n${t.setup}\nawrl_rc=$?; cd "$awrl_here"; (exit $awrl_rc)`;
  // Bounded: a setup line that hangs ends the script with its reason on stderr (setup-limit.ts).
  return withSetupLimit(line, t.setupTimeoutS ?? DEFAULT_SETUP_LIMIT_S);
}

export function targetsFilePath(env: Record<string, string | undefined>, home: string): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : `${home}/.config`;
  return `${base}/awrl-tui/targets.yaml`;
}
