# Writes the logs of this folder: CPython 3.11 tracebacks (carets, exception groups, chains) and
# records formatted the way AReaL's logging formats them (areal/utils/logging.py: the stream
# handler's format is "%(log_color)s" + LOG_FORMAT; colorlog appends its reset to the message,
# and logging appends an exc_info traceback after it). Run: python3 make.py (3.11+); paths and
# times are made fixed so the files are the same on every machine.
import asyncio, io, logging, os, re, sys, traceback

ESC = "\x1b"
HEADER = f"{ESC}[1;38;2;180;140;80m(AReaL){ESC}[0m"
LEVEL = {"WARNING": f"{ESC}[33m", "ERROR": f"{ESC}[31m", "CRITICAL": f"{ESC}[1;37m{ESC}[41m"}
LOGGER = {"StatsLogger": f"{ESC}[92m", "RLTrainer": f"{ESC}[92m", "RewardUtils": f"{ESC}[35m"}


class Formatter(logging.Formatter):
    def __init__(self):
        super().__init__(f"%(c)s{HEADER} %(c)s%(asctime)s.%(msecs)03d %(name)s %(levelname)s: %(message)s",
                         datefmt="%Y%m%d-%H:%M:%S")

    def formatMessage(self, record):
        record.c = LEVEL.get(record.levelname) or LOGGER.get(record.name, f"{ESC}[37m")
        return super().formatMessage(record) + f"{ESC}[0m"


def logger(name, out):
    lg = logging.Logger(name)
    h = logging.StreamHandler(out)
    h.setFormatter(Formatter())
    lg.addHandler(h)
    return lg


def save(name, text):
    text = re.sub(r'File "[^"]*/(\w+\.py)"', r'File "/opt/webgym/\1"', text)
    text = re.sub(r"\d{8}-\d\d:\d\d:\d\d\.\d{3}", "20260412-23:28:42.250", text)
    with open(os.path.join(os.path.dirname(__file__) or ".", name), "w") as f:
        f.write(text)


def step(out, g):
    logger("StatsLogger", out).info(f"Epoch 1/1 Step {g}/9 Train step {g}/9 done.")


def lookup():
    d = {"actor": [1]}
    return d["actor"][3] + 1


# AsyncWebRL's exit path: close() logs the end record and its teardown, then `raise exc_value`.
out = io.StringIO()
step(out, 1)
logger("StatsLogger", out).info("Training completes! Total time elapsed 1852.37.")
logger("RolloutController", out).info("Workers deleted")
logger("TrainController", out).info("Destroying TrainController...")
try:
    lookup()
except Exception:
    out.write(traceback.format_exc())
save("asyncwebrl-teardown.log", out.getvalue())


# An uncaught exception group (asyncio.TaskGroup), then a line of wandb.
async def fail(x):
    raise ValueError(f"reward server {x} unreachable")


async def gather():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(fail(1))
        tg.create_task(fail(2))


out = io.StringIO()
step(out, 1)
try:
    asyncio.run(gather())
except BaseException:
    out.write(traceback.format_exc())
out.write("wandb: Synced 5 W&B file(s), 0 media file(s)\n")
save("exception-group.log", out.getvalue())


# Nested groups and a chain inside one (except*), logged with logger.exception.
def nested():
    try:
        raise ExceptionGroup("outer", [ValueError("a"), ExceptionGroup("inner", [TypeError("b")])])
    except* TypeError as e:
        raise RuntimeError("Worker 'rollout/1' failed with exit code 1") from e


out = io.StringIO()
try:
    nested()
except BaseException:
    logger("RLTrainer", out).exception("rollout failed")
step(out, 2)
save("exception-group-logged.log", out.getvalue())

# Upstream's exit path on SIGINT: KeyboardInterrupt logged, the end record, teardown, uncaught.
out = io.StringIO()
step(out, 1)
try:
    raise KeyboardInterrupt()
except BaseException as e:
    logger("RLTrainer", out).error(f"Training failed with exception: {e}", exc_info=True)
    logger("StatsLogger", out).info("Training completes! Total time elapsed 12.00.")
    logger("RolloutController", out).info("Workers deleted")
    out.write(traceback.format_exc())
save("keyboard-interrupt.log", out.getvalue())

# A progress bar (stderr) redrawn with \r and no newline, then a record (stdout) on its line.
out = io.StringIO()
out.write("Map:   0%|          | 0/512 [00:00<?, ? examples/s]\rMap:  50%|█████     | 256/512 [00:01<00:01, 200.00 examples/s]\r")
try:
    lookup()
except Exception as e:
    logger("RLTrainer", out).error(f"Training failed with exception: {e}", exc_info=True)
logger("StatsLogger", out).info("Training completes! Total time elapsed 12.00.")
save("progress-bar.log", out.getvalue())


# Ray re-raises a remote error as RayTaskError, whose text is the remote traceback with each
# `Traceback …` line written as `ray::<task>() (pid=…, ip=…, …)` in colour (colorama CYAN, RESET:
# ray/exceptions.py RayTaskError.__str__), so a chain inside it has no `Traceback` line.
def remote_call():
    try:
        lookup()
    except IndexError as e:
        raise RuntimeError("RPC 'ppo_update' failed on actor/0") from e


try:
    remote_call()
except Exception:
    remote = traceback.format_exc()
task = (f"{ESC}[36mray::RayRPCServer.call(){ESC}[39m (pid=48213, ip=10.0.0.9, "
        "actor_id=5a0c1e7f26b8f0b1a2f1b9a801000000, repr=<RayRPCServer object at 0x7f1c2e5b4d90>)")
remote = "\n".join(task if l.startswith("Traceback ") else l for l in remote.strip().split("\n"))
save("ray-task-error-chain.log",
     'Traceback (most recent call last):\n  File "/opt/webgym/train.py", line 201, in main\n'
     "    trainer.train(workflow)\n"
     '  File "/usr/lib/python3/site-packages/ray/_private/worker.py", line 2771, in get\n'
     "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)\n"
     f"ray.exceptions.RayTaskError(RuntimeError): {remote}\n"
     "wandb: 🚀 View run at https://wandb.ai/x/y/runs/z\n")
# A dead actor: the message goes on with tab-indented fields and an unindented sentence.
save("ray-actor-died.log",
     'Traceback (most recent call last):\n  File "/opt/webgym/train.py", line 201, in main\n'
     "    trainer.train(workflow)\n"
     "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
     "\tclass_name: RayRPCServer\n\tactor_id: 5a0c1e7f26b8f0b1a2f1b9a801000000\n\tpid: 48213\n"
     "\tname: actor/0\n\tnamespace: areal\n\tip: 10.0.0.9\n"
     "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
     "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.\n"
     "wandb: 🚀 View run at https://wandb.ai/x/y/runs/z\n")


# A worker process that died, with the local scheduler: WorkerFailedError's message holds the
# last 50 lines of the worker's <role>.log (areal/infra/scheduler/exceptions.py: "\nStderr
# output:\n{stderr}"; local.py _read_log_tail), its records and traceback unprefixed. Upstream's
# exit path logs it, writes the end record and the teardown, then Python prints it again.
class WorkerFailedError(Exception):
    def __init__(self, worker_id, exit_code, stderr=""):
        message = f"Worker '{worker_id}' failed with exit code {exit_code}"
        if stderr:
            message += f"\nStderr output:\n{stderr}"
        super().__init__(message)


WorkerFailedError.__module__ = "areal.infra.scheduler.exceptions"
worker = io.StringIO()
for k in range(46):
    logger("RPCServer", worker).info(f"Handled call ppo_update #{k}")
logger("IOStruct", worker).info(
    "Memory-Usage after onload model: memory allocated (GB): 16.42, memory reserved (GB): 16.90, "
    "device memory used/total (GB): 20.70/79.11")
try:
    raise MemoryError("CUDA out of memory. Tried to allocate 3.92 GiB.")
except MemoryError:
    logger("[FSDPEngine Rank 0]", worker).error("Exception in train_batch", exc_info=True)
tail = "".join(worker.getvalue().replace("MemoryError:", "torch.OutOfMemoryError:").splitlines(True)[-50:])


def check_health():
    raise WorkerFailedError("actor/0", 1, tail)


out = io.StringIO()
step(out, 1)
try:
    check_health()
except Exception as e:
    logger("RLTrainer", out).error(f"Training failed with exception: {e}", exc_info=True)
    logger("StatsLogger", out).info("Training completes! Total time elapsed 1852.37.")
    logger("RolloutController", out).info("Workers deleted")
    out.write(traceback.format_exc())
save("worker-failed-stderr.log", out.getvalue())


# NO_COLOR set: colorlog blanks every code, its reset too; AReaL's formatter gives INFO and DEBUG
# records their logger's colour back (LoggerColoredFormatter.formatMessage). A WARNING, a line of
# output, then the controller's uncaught traceback.
class NoColorFormatter(Formatter):
    def formatMessage(self, record):
        record.c = LOGGER.get(record.name, f"{ESC}[37m") if record.levelno < logging.WARNING else ""
        return logging.Formatter.formatMessage(self, record)


def nocolor_logger(name, out):
    lg = logging.Logger(name)
    h = logging.StreamHandler(out)
    h.setFormatter(NoColorFormatter())
    lg.addHandler(h)
    return lg


out = io.StringIO()
nocolor_logger("RolloutController", out).info("Workers ready")
nocolor_logger("RewardUtils", out).warning("reward server slow: 12.0 s")
out.write("wandb: syncing run webgym-grpo\n")
try:
    lookup()
except Exception:
    out.write(traceback.format_exc())
save("no-color.log", out.getvalue())


# A Slurm job at its time limit: slurmstepd sends SIGTERM (Python dies without a traceback; no
# end record) and writes why into the job's output, srun tells of its tasks.
out = io.StringIO()
step(out, 1)
out.write("slurmstepd: error: *** JOB 4242 ON node01 CANCELLED AT 2026-04-12T23:30:00 DUE TO TIME LIMIT ***\n")
out.write("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n")
out.write("slurmstepd: error: *** STEP 4242.0 ON node01 CANCELLED AT 2026-04-12T23:30:00 DUE TO TIME LIMIT ***\n")
out.write("srun: error: node01: task 0: Terminated\n")
out.write("srun: Force Terminated StepId=4242.0\n")
save("slurm-time-limit.log", out.getvalue())
