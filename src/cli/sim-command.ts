// `awrl-tui sim init DIR`: make a directory whose `python3 webgym/train.py` is the simulator.
// `awrl-tui sim run [--sim-speed X] --config FILE [OVERRIDE...]`: run the simulated trainer directly.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from './errors.js';
import { simInit } from '../sim/init.js';
import { MakeDirError } from '../sim/make-dirs.js';
import { simMain } from '../sim/main.js';

const USAGE = 'usage: awrl-tui sim init DIR | awrl-tui sim run [--sim-speed X|instant] --config FILE [OVERRIDE...]';

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const distDir = dirname(dirname(fileURLToPath(import.meta.url)));
  if (sub === 'init') {
    if (rest.length !== 1 || rest[0].startsWith('-'))
      throw new CliError(`sim init takes one directory. ${USAGE}`, EXIT.usage);
    let r: ReturnType<typeof simInit>;
    try {
      r = simInit(rest[0], distDir, dirname(distDir));
    } catch (err) {
      // A directory that cannot be made is bad input (exit 2), said in one line.
      if (err instanceof MakeDirError) throw new CliError(`sim init: ${err.message}`, EXIT.usage);
      throw err;
    }
    process.stdout.write(
      `Simulated AsyncWebRL checkout in ${r.dir}\n` +
        `  trainer:    cd ${r.dir} && python3 webgym/train.py --config ${r.config ?? 'FILE'}\n` +
        `  nvidia-smi: ${r.nvidiaSmi} (put ${join(r.dir, 'bin')} on PATH)\n` +
        `  knobs (env): AWRL_SIM_SPEED, AWRL_SIM_FAULT, AWRL_SIM_SEED, AWRL_SIM_DATASET_SIZE\n`,
    );
    return EXIT.ok;
  }
  if (sub === 'run') {
    let speed: number | 'instant' | undefined;
    const pass: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i];
      const v = a === '--sim-speed' ? rest[++i] : a.startsWith('--sim-speed=') ? a.slice(12) : null;
      if (v === null) {
        pass.push(a);
        continue;
      }
      if (v === 'instant') speed = 'instant';
      else if (v !== undefined && Number(v) > 0) speed = Number(v);
      else throw new CliError(`--sim-speed wants a positive number or 'instant', got '${v ?? ''}'`, EXIT.usage);
    }
    return simMain(
      pass,
      process.env,
      { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) },
      speed,
    );
  }
  throw new CliError(USAGE, EXIT.usage);
}
