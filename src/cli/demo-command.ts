// `awrl-tui --demo [--keep] [--sim-speed X] [--fault SPEC]`: the cockpit on a simulated run, on this
// machine, with no cluster. It goes through the same path as a real run: `sim init` makes a checkout
// whose webgym/train.py is the simulator, the config engine validates its config, src/runs launches
// it as a detached job through the local Transport, and the cockpit follows its stdout.log.
// Without a terminal it prints progress lines instead (what `--launch --follow` prints).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from './errors.js';
import { quietWhenStdoutCloses } from './stdio.js';
import { FaultSpecError, parseFaults } from '../sim/faults.js';
import type { LocalTransport } from '../remote/index.js';
import type { Target } from '../runs/index.js';
import { notInteractiveReason } from '../ui/tty.js';
import type { Splash } from '../ui/chrome.js';
import { IMAGE_MODES, type ImageChoice, type ImageModeWanted } from '../images/detect.js';
import { chooseImages } from './terminal-images.js';

interface DemoArgs {
  keep: boolean;
  speed: string;
  fault: string | null;
  images: ImageModeWanted;
}

function parseArgs(args: string[]): DemoArgs {
  const out: DemoArgs = { keep: false, speed: process.env.AWRL_SIM_SPEED ?? '150', fault: null, images: 'auto' };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = (name: string): string => {
      if (a.startsWith(`${name}=`)) return a.slice(name.length + 1);
      const v = args[++i];
      if (v === undefined) throw new CliError(`${name} needs a value`, EXIT.usage);
      return v;
    };
    if (a === '--keep') out.keep = true;
    else if (a === '--sim-speed' || a.startsWith('--sim-speed=')) out.speed = value('--sim-speed');
    else if (a === '--fault' || a.startsWith('--fault=')) out.fault = value('--fault');
    else if (a === '--images' || a.startsWith('--images=')) out.images = value('--images') as ImageModeWanted;
    else
      throw new CliError(
        `--demo: unknown argument '${a}' (options: --keep, --sim-speed X, --fault SPEC, --images MODE)`,
        EXIT.usage,
      );
  }
  if (!IMAGE_MODES.includes(out.images))
    throw new CliError(`--images takes ${IMAGE_MODES.join('|')}, not '${out.images}'`, EXIT.usage);
  if (out.speed !== 'instant' && !(Number(out.speed) > 0))
    throw new CliError(`--sim-speed wants a positive number or 'instant', got '${out.speed}'`, EXIT.usage);
  // Read as the simulator will read it: a bad SPEC is bad input here, not a demo run that fails at once.
  if (out.fault !== null) {
    try {
      parseFaults(out.fault);
    } catch (e) {
      if (!(e instanceof FaultSpecError)) throw e;
      throw new CliError(`--fault: ${e.message}`, EXIT.usage);
    }
  }
  return out;
}

export async function run(args: string[]): Promise<number> {
  const opts = parseArgs(args);
  // The first frame goes up before the heavy modules load and the run starts (the goal is a frame
  // within ~0.7 s); the cockpit then paints over it.
  const interactive = notInteractiveReason() === null;
  const splash: Splash | null = interactive
    ? (await import('../ui/chrome.js')).openSplash(process.stdout, 'dashboard', 'starting the simulated run…')
    : null;
  try {
    return await runDemo(opts, splash);
  } finally {
    splash?.close();
  }
}

const ENDED: ReadonlySet<string> = new Set(['finished', 'failed', 'stopped', 'timeout']);

async function runDemo(opts: DemoArgs, splash: Splash | null): Promise<number> {
  const [
    { LocalTransport },
    { launchRun, listRuns, planFromConfig, stopRun },
    { followToEnd, StepProgress },
    { simInit },
  ] = await Promise.all([
    import('../remote/index.js'),
    import('../runs/index.js'),
    import('../watch/index.js'),
    import('../sim/init.js'),
  ]);
  const distDir = dirname(dirname(fileURLToPath(import.meta.url)));
  const dir = mkdtempSync(join(tmpdir(), 'awrl-demo-'));
  const cleanup = () => {
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  };
  const target: Target = {
    name: 'local',
    host: 'local',
    workdir: dir,
    python: 'python3',
    backend: 'direct',
    slurm: { extraArgs: [] },
  };
  const transport = new LocalTransport();
  let runId: string | null = null;
  /** The launch in flight: its start script runs on its own, so it is let finish before stopping. */
  let launching: Promise<unknown> | null = null;
  // Closing the terminal (tmux kill, SSH drop), a kill, Ctrl-C or `| head` must still stop the
  // simulated run and remove its files, from the moment they exist: otherwise a demo leaves a
  // trainer running in /tmp.
  let finishing: Promise<void> | null = null;
  const finish = (): Promise<void> =>
    (finishing ??= (async () => {
      await launching?.catch(() => undefined);
      // Every run in the demo's directory: its own, and any launched from its Config screen.
      const ids = new Set(runId ? [runId] : []);
      for (const r of await listRuns(transport, target).catch(() => [])) if (!ENDED.has(r.state)) ids.add(r.runId);
      await Promise.all(
        [...ids].map((id) => stopRun(transport, target, id, { graceSeconds: 3 }).catch(() => undefined)),
      );
      await transport.close().catch(() => undefined);
      cleanup();
    })());
  // The signal that ends the demo (null: none): the follow it ends is then no lost connection.
  let signalled: string | null = null;
  const onSignal = (sig: string, code: number) => () => {
    signalled = sig;
    void finish().then(() => process.exit(code));
  };
  // Ctrl-C too: headless, it ends the demo with 130; the cockpit reads Ctrl-C as a key (raw mode).
  const handlers = [
    ['SIGHUP', 129],
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const;
  const installed = handlers.map(([sig, code]) => {
    const h = onSignal(sig, code);
    process.once(sig, h);
    return [sig, h] as const;
  });
  // `--demo | head`: the reader gone, the simulated run is stopped and its checkout removed first.
  if (!splash) quietWhenStdoutCloses(finish);
  try {
    const init = simInit(dir, distDir, dirname(distDir), process.execPath, { demo: true });
    if (!init.config) throw new CliError('the simulator wrote no demo config', EXIT.internal);
    // The job and the fake nvidia-smi inherit this process's environment through the local Transport.
    process.env.PATH = `${join(dir, 'bin')}${delimiter}${process.env.PATH ?? ''}`;
    process.env.AWRL_SIM_SPEED = opts.speed;
    process.env.AWRL_SIM_WARM_START ??= '1';
    if (opts.fault) process.env.AWRL_SIM_FAULT = opts.fault;
    // The demo config names the Omniboxes token variable like a real one; the simulator never uses it.
    const env: Record<string, string | undefined> = { CPU_CLUSTER_TOKEN: 'demo-token-not-a-secret', ...process.env };
    const text = readFileSync(init.config, 'utf8');
    const planned = planFromConfig({ target, fileName: init.config, text, overrides: [], env });
    if (!planned.ok) throw new CliError(`the demo config has errors:\n${planned.messages.join('\n')}`, EXIT.internal);
    const launch = launchRun(planned.plan, transport, { env });
    launching = launch;
    const res = await launch;
    runId = res.record.runId;
    // The demo's own config on the Config screen: a new launch from there goes to the same target.
    if (splash) {
      const images = await chooseImages(opts.images, { askDa1: false });
      await openCockpit(target, transport, runId, splash, { fileName: init.config, text }, env, images);
    } else
      return await printProgress(
        target,
        transport,
        runId,
        res.logPath,
        dir,
        { followToEnd, StepProgress },
        () => signalled,
      );
    return EXIT.ok;
  } finally {
    // Quitting the demo stops the simulated run (a real run is never stopped by quitting).
    for (const [sig, h] of installed) process.off(sig, h);
    await finish();
  }
}

async function openCockpit(
  target: Target,
  transport: LocalTransport,
  runId: string,
  splash: Splash,
  config: { fileName: string; text: string },
  env: Record<string, string | undefined>,
  images: ImageChoice,
): Promise<void> {
  const { createLiveSession } = await import('../session/live-session.js');
  const { runCockpit } = await import('../ui/index.js');
  const session = createLiveSession({
    targets: [{ target, transport }],
    openRunId: runId,
    config,
    launchTarget: target.name,
    env,
  });
  try {
    await runCockpit({ session, initialScreen: 'dashboard', splash, images });
  } finally {
    await session.close();
  }
}

type WatchModule = typeof import('../watch/index.js');

async function printProgress(
  target: Target,
  transport: LocalTransport,
  runId: string,
  logPath: string,
  dir: string,
  { followToEnd, StepProgress: Progress }: Pick<WatchModule, 'followToEnd' | 'StepProgress'>,
  signalled: () => string | null,
): Promise<number> {
  const say = (s: string) => process.stdout.write(`${s}\n`);
  say(`demo run ${runId} in ${dir} (no terminal: printing progress; Ctrl-C stops the demo)`);
  const steps = new Progress();
  const outcome = await followToEnd(transport, target, runId, logPath, {
    onEvent: (e) => {
      const line = steps.line(e);
      if (line !== null) say(line);
      else if (e.type === 'finished') say('training finished');
    },
  });
  // How the run ended, and the exit code that says it (as `follow`): a fault is no success.
  // A signal ended the demo: it stops its run and removes its files, whether the follow then saw the
  // connection close or (first) the run's state say `stopped`.
  const sig = signalled();
  if (sig !== null) {
    say(`demo stopped (${sig}): the simulated run is stopped and its files removed`);
    return EXIT.stopped;
  }
  if (outcome.kind === 'disconnected') {
    say(`lost the simulated run: ${outcome.reason}`);
    return EXIT.disconnected;
  }
  say(`state    ${outcome.state}${outcome.detail ? ` (${outcome.detail})` : ''}`);
  return outcome.state === 'finished' ? EXIT.ok : outcome.state === 'stopped' ? EXIT.stopped : EXIT.failed;
}
