// Entry of the simulated trainer: what `python3 webgym/train.py --config FILE k=v …` runs when the
// `sim init` shim stands in for the real train.py. Reads the config with the project's config engine
// (a config that fails its errors exits 1, as the trainer does), then runs the simulated trainer.
import { readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { evaluateConfig, formatDiagnostic } from '../config/index.js';
import { parseTrainArgs } from './argv.js';
import { readSimEnv, SimEnvError } from './env.js';
import { planFromConfig, pythonUser } from './plan.js';
import { runTrainer } from './trainer.js';

export interface MainIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

export async function simMain(
  argv: string[],
  env: Record<string, string | undefined>,
  io: MainIo,
  speedOverride?: number | 'instant',
): Promise<number> {
  const args = parseTrainArgs(argv);
  if (!args.ok) {
    (args.help ? io.stdout : io.stderr)(args.text);
    return args.code;
  }
  let simEnv;
  try {
    simEnv = readSimEnv(env);
  } catch (e) {
    if (!(e instanceof SimEnvError)) throw e;
    io.stderr(`awrl-tui sim: ${e.message}\n`);
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(args.config, 'utf8');
  } catch {
    io.stderr(`FileNotFoundError: [Errno 2] No such file or directory: '${args.config}'\n`);
    return 1;
  }
  const envNames = Object.keys(env).filter((k) => env[k] !== undefined && env[k] !== '');
  const ev = evaluateConfig({ fileName: args.config, text, overrides: args.overrides, envNames });
  const errors = ev.diagnostics.filter((d) => d.severity === 'error');
  if (ev.hasErrors || !ev.resolved || !ev.experimentName || !ev.trialName) {
    for (const d of errors) io.stderr(formatDiagnostic(d, args.config) + '\n');
    const first = errors[0];
    const why = first ? first.message : (ev.experimentNameUnknown ?? 'experiment_name/trial_name missing');
    io.stderr(`ValueError: invalid experiment config ${args.config}: ${why}\n`);
    return 1;
  }
  const plan = planFromConfig({
    resolved: ev.resolved,
    experimentName: ev.experimentName,
    trialName: ev.trialName,
    user: pythonUser(env, safeAccountName()),
    datasetSize: datasetLines(ev.resolved?.train_dataset?.path) ?? simEnv.datasetSize,
    evalTasks: datasetLines(ev.resolved?.valid_dataset?.path) ?? undefined,
  });
  if (simEnv.seed !== null) plan.seed = simEnv.seed;
  const statePaths = [join(plan.fileroot, '.awrl-sim', 'state.json')];
  if (simEnv.home) statePaths.push(join(simEnv.home, 'state', 'state.json'));
  return runTrainer({
    plan,
    resolvedConfig: ev.resolved,
    resolvedYaml: ev.effectiveYaml({ resolved: true }),
    faults: simEnv.faults,
    speed: speedOverride ?? simEnv.speed,
    truthPath: simEnv.truthPath,
    warmStart: simEnv.warmStart,
    statePaths,
    stdout: io.stdout,
    stderr: io.stderr,
  });
}

/**
 * Lines of a dataset's path (train_dataset.path, valid_dataset.path) when that file exists (relative to the working directory, as the
 * trainer opens it): the trainer's steps per epoch come from its dataset, so the simulator's do too.
 * Null (AWRL_SIM_DATASET_SIZE applies) when there is no such file or it is empty.
 */
function datasetLines(path: unknown): number | null {
  if (typeof path !== 'string' || path === '') return null;
  try {
    if (!statSync(path).isFile()) return null;
    const buf = readFileSync(path);
    let n = 0;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
    return n > 0 ? n : null;
  } catch {
    return null;
  }
}

function safeAccountName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'root';
  }
}

// Run as a program (the shim execs `node dist/sim/main.js ARGS`).
if (process.argv[1] && /[\\/]sim[\\/]main\.js$/.test(process.argv[1])) {
  const code = await simMain(process.argv.slice(2), process.env, {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
  });
  process.exitCode = code;
}
