// Trainer logs written through the trainer's real exit paths (docs/trainer.md §5), as AReaL's
// logging writes them (areal/utils/logging.py: colorlog, its reset before an exc_info traceback;
// merged.log's `[main]    ` on a record's first line only, a worker's prefix on every line) and
// as Python prints an uncaught exception (to stderr, which the launcher captures into stdout.log):
//
//   AsyncWebRL (webgym async 01e3daef, RLTrainer.__exit__): self.close() -> StatsLogger.close()
//     logs `Training completes! …`, then the controllers' destroy() log their teardown, then
//     `raise exc_value`: the end record, the teardown records, then the traceback.
//   upstream AReaL (rl_trainer.py __exit__): logger.error(f"Training failed with exception:
//     {exc_value}", exc_info=True), then self.close() (the end record), then the exception
//     propagates: Python prints it again.
//
// Each failure is one a run meets: a CUDA OOM in a worker's train_batch, a dead Ray actor, a
// worker process that exited (a chained EngineCallError -> WorkerFailedError).

const ESC = '\x1b';
const HEADER = `${ESC}[1;38;2;180;140;80m(AReaL)${ESC}[0m`;
const RESET = `${ESC}[0m`;
const COLOUR: Record<string, string> = { WARNING: `${ESC}[33m`, ERROR: `${ESC}[31m` };
/** An INFO record's colour is its logger's (LOGGER_COLORS_EXACT, LOGGER_PATTERNS; white else). */
const LOGGER_COLOUR: Record<string, string> = { StatsLogger: `${ESC}[92m`, RLTrainer: `${ESC}[92m` };
const colour = (logger: string, level: string): string =>
  COLOUR[level] ?? LOGGER_COLOUR[logger] ?? (logger.includes('FSDPEngine') ? `${ESC}[96m` : `${ESC}[37m`);

export type Trainer = 'asyncwebrl' | 'upstream';
export type Failure = 'oom' | 'ray-actor' | 'worker-failed';
export type Scheduler = 'ray' | 'local';

export interface ExitLogs {
  main: string;
  merged: string;
  /** The controller's stdout and stderr as the launcher captures them. */
  stdout: string;
}

interface Rec {
  stamp: string;
  logger: string;
  level: 'INFO' | 'WARNING' | 'ERROR';
  message: string;
  traceback?: string;
}

/** colorlog: the reset ends the message; logging appends the traceback after it. */
function format(r: Rec): string {
  const head = `${HEADER} ${colour(r.logger, r.level)}${r.stamp} ${r.logger} ${r.level}: ${r.message}${RESET}`;
  return r.traceback ? `${head}\n${r.traceback}` : head;
}

const every = (text: string, prefix: string): string =>
  text
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');

const frames = (fs: [string, number, string, string][]): string =>
  fs.map(([f, n, fn, code]) => `  File "${f}", line ${n}, in ${fn}\n    ${code}`).join('\n');

const TRAIN_PY: [string, number, string, string][] = [
  ['/opt/webgym/webgym/train.py', 214, '<module>', 'main()'],
  ['/opt/webgym/webgym/train.py', 201, 'main', 'trainer.train(workflow, eval_workflow=eval_workflow)'],
];
const EXIT_FRAME: [string, number, string, string] = [
  '/opt/webgym/areal/trainer/rl_trainer.py',
  1541,
  '__exit__',
  'raise exc_value',
];
const STEP_FRAMES: [string, number, string, string][] = [
  ['/opt/webgym/areal/trainer/rl_trainer.py', 512, 'train', 'self.actor.ppo_update(adv_batch)'],
  [
    '/opt/webgym/areal/trainer/ppo/actor.py',
    96,
    'ppo_update',
    'return self._custom_function_call("ppo_update", batch)',
  ],
];

const OOM_TEXT =
  'CUDA out of memory. Tried to allocate 3.92 GiB. GPU 0 has a total capacity of 79.11 GiB of which 1.27 GiB is free. ' +
  'Including non-PyTorch memory, this process has 77.83 GiB memory in use.';

/** The exception lines Python prints for the failure (the exception's own text included). */
function exceptionText(f: Failure): string {
  if (f === 'oom') {
    // Ray re-raises a remote error as RayTaskError, whose text holds the remote traceback.
    return (
      'ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayRPCServer.call() (pid=48213, ip=10.0.0.9)\n' +
      frames([['/opt/webgym/areal/infra/rpc/rpc_server.py', 214, 'call_engine', 'result = method(*args, **kwargs)']]) +
      `\ntorch.OutOfMemoryError: ${OOM_TEXT}`
    );
  }
  if (f === 'ray-actor') {
    return (
      'ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.\n' +
      '\tclass_name: RayRPCServer\n\tactor_id: 5a0c1e7f26b8f0b1a2f1b9a801000000\n\tpid: 48213'
    );
  }
  return "areal.infra.scheduler.exceptions.WorkerFailedError: Worker 'actor/0' failed with exit code 1";
}

/** The whole traceback of the controller's exception (a chain for a worker failure). */
function traceback(f: Failure, uncaught: boolean, trainer: Trainer): string {
  const outer = uncaught
    ? trainer === 'asyncwebrl'
      ? [...TRAIN_PY, EXIT_FRAME, TRAIN_PY[1]]
      : TRAIN_PY
    : [TRAIN_PY[1]];
  const tb = `Traceback (most recent call last):\n${frames([...outer, ...STEP_FRAMES])}`;
  if (f !== 'worker-failed') return `${tb}\n${exceptionText(f)}`;
  const cause =
    'Traceback (most recent call last):\n' +
    frames([['/opt/webgym/areal/infra/controller/train_controller.py', 288, '_rpc_call', 'return future.result()']]) +
    "\nareal.infra.rpc.exceptions.EngineCallError: RPC 'ppo_update' to actor/0 (10.0.0.9:37211) failed: connection reset by peer";
  return `${cause}\n\nThe above exception was the direct cause of the following exception:\n\n${tb}\n${exceptionText(f)}`;
}

/** The str() of the exception, as `Training failed with exception: {exc_value}` prints it. */
function excStr(f: Failure): string {
  const last = exceptionText(f).split('\n')[0];
  return last.slice(last.indexOf(': ') + 2);
}

const STATS: [string, string][] = [
  ['rollout/reward', '2.5000e-01'],
  ['ppo_actor/update/grad_norm', '1.0200e+00'],
  ['timeperf/train_step', '1.2000e+02'],
  ['ppo_actor/n_tokens', '1.2881e+07'],
];

function tableText(stats: [string, string][]): string {
  const w0 = Math.max(...stats.map(([k]) => k.length));
  const w1 = Math.max(...stats.map(([, v]) => v.length));
  const top = `╒${'═'.repeat(w0 + 2)}╤${'═'.repeat(w1 + 2)}╕`;
  const mid = `├${'─'.repeat(w0 + 2)}┼${'─'.repeat(w1 + 2)}┤`;
  const bottom = `╘${'═'.repeat(w0 + 2)}╧${'═'.repeat(w1 + 2)}╛`;
  const rows = stats.map(([k, v]) => `│ ${k.padEnd(w0)} │ ${v.padStart(w1)} │`);
  return [top, rows.join(`\n${mid}\n`), bottom].join('\n');
}

/** The logs of a run of `trainer` that meets `failure` (null: completes) in its third step. */
export function exitLogs(trainer: Trainer, failure: Failure | null, scheduler: Scheduler = 'ray'): ExitLogs {
  const main: string[] = [];
  const merged: string[] = [];
  const stdout: string[] = [];
  let sec = 0;
  const stamp = (): string =>
    `20260412-23:${String(10 + Math.floor(sec / 60)).padStart(2, '0')}:${String(sec++ % 60).padStart(2, '0')}.250`;
  const controller = (logger: string, level: Rec['level'], message: string, tb?: string): void => {
    const text = format({ stamp: stamp(), logger, level, message, traceback: tb });
    main.push(text);
    merged.push('[main]    ' + text);
    // The stream handler's format starts with the colour too (`"%(log_color)s" + LOG_FORMAT`).
    stdout.push(colour(logger, level) + text);
  };
  const worker = (role: string, logger: string, level: Rec['level'], message: string, tb?: string): void => {
    const text = format({ stamp: stamp(), logger, level, message, traceback: tb });
    merged.push(every(text, `[${role}]`.padEnd(10)));
    stdout.push(scheduler === 'ray' ? every(text, '(RayRPCServer pid=48213, ip=10.0.0.9) ') : text);
  };
  const memory = (phase: string, gb: number): string =>
    `Memory-Usage ${phase}: memory allocated (GB): ${gb.toFixed(2)}, memory reserved (GB): 61.07, device memory used/total (GB): 64.90/79.11`;

  controller(
    'Recover',
    'WARNING',
    'Resume info not found at /mnt/ckpt/recover_info. This should not be a resumed experiment!',
  );
  worker('actor', 'IOStruct', 'INFO', memory('after model creation/loading', 16.42));
  for (let g = 1; g <= 3; g++) {
    controller(
      'RolloutController',
      'INFO',
      `prepare_batch/rollout: pending_before=2, consumed=16, wait=612.3s, localize+concat=4.1s, total=616.4s, batch_shape=[1093, 15211], n_episodes=128, mmi_len=1093`,
    );
    controller('IOStruct', 'INFO', memory('recompute logp', 18.42));
    if (g === 3 && failure === 'oom') {
      const wt = `Traceback (most recent call last):\n${frames([['/opt/webgym/areal/engine/fsdp_engine.py', 731, 'train_batch', 'loss.backward()']])}\ntorch.OutOfMemoryError: ${OOM_TEXT}`;
      worker('actor', '[FSDPEngine Rank 0]', 'ERROR', 'Exception in train_batch', wt);
    }
    if (g === 3 && failure !== null) break;
    controller('IOStruct', 'INFO', memory('ppo update', 20.99));
    controller('StatsLogger', 'INFO', `Epoch 1/1 Step ${g}/3 Train step ${g}/3 done.`);
    controller('StatsLogger', 'INFO', 'Stats (1/1):');
    controller('StatsLogger', 'INFO', '\n' + tableText(STATS));
  }
  if (failure !== null && trainer === 'upstream')
    controller(
      'RLTrainer',
      'ERROR',
      `Training failed with exception: ${excStr(failure)}`,
      traceback(failure, false, trainer),
    );
  controller('StatsLogger', 'INFO', 'Training completes! Total time elapsed 1852.37.');
  // close() goes on after StatsLogger.close(): it destroys the rollout and train controllers,
  // which log (RolloutController.destroy, TrainController.destroy), before the exception propagates.
  controller('RolloutController', 'INFO', 'Workers deleted');
  controller('TrainController', 'INFO', 'Destroying TrainController...');
  controller('TrainController', 'INFO', 'Destroying engines on all workers...');
  controller('TrainController', 'INFO', 'Engines destroyed');
  // wandb.finish() prints to stdout, then the exception propagates: Python writes it to stderr.
  stdout.push('wandb: 🚀 View run at https://wandb.ai/x/y/runs/z');
  if (failure !== null) stdout.push(traceback(failure, true, trainer));
  const text = (lines: string[]): string => lines.join('\n') + '\n';
  return { main: text(main), merged: text(merged), stdout: text(stdout) };
}

export const FAILURES: Failure[] = ['oom', 'ray-actor', 'worker-failed'];
export const TRAINERS: Trainer[] = ['asyncwebrl', 'upstream'];
