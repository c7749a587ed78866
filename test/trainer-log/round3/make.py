# Writes the logs of this folder (issue #27): shapes of real AReaL logs, written through CPython's own
# traceback, logging and runpy code with AReaL's coloured formatter (areal/utils/logging.py: the
# stream handler's format is "%(log_color)s" + LOG_FORMAT, colorlog appends its reset to the
# message, logging appends an exc_info traceback after it). Run: python3 make.py (3.11+). Times
# are set per record (CLOCK) and paths made fixed, so the files are the same on every machine.
import io, logging, os, re, subprocess, sys, tempfile, textwrap, traceback

ESC = "\x1b"
HEADER = f"{ESC}[1;38;2;180;140;80m(AReaL){ESC}[0m"
LEVEL = {"WARNING": f"{ESC}[33m", "ERROR": f"{ESC}[31m", "CRITICAL": f"{ESC}[1;37m{ESC}[41m"}
LOGGER = {"StatsLogger": f"{ESC}[92m", "RLTrainer": f"{ESC}[92m"}
HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK = ["20260413-09:00:00.000"]


class Formatter(logging.Formatter):
    def __init__(self):
        super().__init__(f"%(c)s{HEADER} %(c)s%(stamp)s %(name)s %(levelname)s: %(message)s")

    def formatMessage(self, record):
        record.c = LEVEL.get(record.levelname) or LOGGER.get(record.name, f"{ESC}[37m")
        record.stamp = CLOCK[0]
        return super().formatMessage(record) + f"{ESC}[0m"


def logger(name, out):
    lg = logging.Logger(name)
    h = logging.StreamHandler(out)
    h.setFormatter(Formatter())
    lg.addHandler(h)
    return lg


def fixed(text):
    text = re.sub(r'File "[^"<]*/([\w.]+\.py)"', r'File "/opt/areal/\1"', text)
    return re.sub(r"0x[0-9a-f]{6,}", "0x7f1c2e5b4d90", text)


def save(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(fixed(text))


def step(out, g, at):
    CLOCK[0] = at
    logger("StatsLogger", out).info(f"Epoch 1/1 Step {g}/9 Train step {g}/9 done.")


def run_module(source, name="server_main"):
    """What `python -m <name>` prints when <name> raises: runpy's frames first (its stderr)."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, name + ".py"), "w") as f:
            f.write(textwrap.dedent(source))
        r = subprocess.run([sys.executable, "-m", name], cwd=d, capture_output=True, text=True)
    return r.stderr


# 1. WorkerFailedError quotes the last 50 lines of the worker's log (local.py _read_log_tail),
# a log appended across attempts: an attempt 14 h older (its SGLang launch failure, logged with
# format_exc() in the message, so colorlog's reset is alone on its line), then this attempt's
# end: the port its server wanted was in use.
worker = io.StringIO()
w = logger("RolloutWorker", worker)
CLOCK[0] = "20260412-19:02:11.500"
for k in range(30):
    w.info(f"Handled call generate #{k}")
try:
    raise TimeoutError("server launch failed")
except TimeoutError as e:
    w.error(f"Engine method 'initialize' failed: {e}\n{traceback.format_exc()}")
try:
    raise TimeoutError("server launch failed")
except TimeoutError:
    worker.write(traceback.format_exc())
CLOCK[0] = "20260413-08:59:40.100"
for k in range(20):
    w.info(f"Starting server attempt {k}")
try:
    raise OSError(98, "error while attempting to bind on address ('0.0.0.0', 23456): address already in use")
except OSError:
    worker.write(traceback.format_exc())
tail = "".join(worker.getvalue().splitlines(True)[-50:])


class WorkerFailedError(Exception):
    def __init__(self, worker_id, exit_code, stderr=""):
        message = f"Worker '{worker_id}' failed with exit code {exit_code}"
        if stderr:
            message += f"\nStderr output:\n{stderr}"
        super().__init__(message)


WorkerFailedError.__module__ = "areal.infra.scheduler.exceptions"


def call_engine():
    raise WorkerFailedError("rollout/0", 1, tail)


out = io.StringIO()
step(out, 3, "20260413-08:58:00.000")
CLOCK[0] = "20260413-09:00:02.250"
try:
    call_engine()
except Exception as e:
    logger("RLTrainer", out).error(f"Training failed with exception: {e}", exc_info=True)
    CLOCK[0] = "20260413-09:00:02.300"
    logger("StatsLogger", out).info("Training completes! Total time elapsed 2533.10.")
    CLOCK[0] = "20260413-09:00:04.000"
    logger("RolloutController", out).info("Workers deleted")
    out.write(traceback.format_exc())
save("worker-failed-old-attempts.log", out.getvalue())

# 2. A one-line WARNING (colorlog's reset ends it), then the SGLang server process's own uncaught
# crash (`python -m sglang.launch_server`: runpy's frames first), not that warning's exc_info.
out = io.StringIO()
CLOCK[0] = "20260413-09:10:00.000"
logger("CLIArgs", out).warning("sglang.enable_metrics is deprecated, use sglang.metrics")
out.write(run_module("""
    def check_gpus():
        raise RuntimeError("nvidia-smi error: Failed to initialize NVML: Driver/library version mismatch")
    check_gpus()
"""))
CLOCK[0] = "20260413-09:10:05.000"
logger("RemoteInfEngine", out).info("Waiting for server ready")
save("warning-then-runpy.log", out.getvalue())

# 2b. AReaL's reward code: a WARNING with a multi-line message and exc_info=True (the traceback is
# the warning's), twice, then the trainer's own uncaught crash: written with colour; the test reads
# it with the colour removed too (sed, LOG_FORMAT_PLAIN), where no reset tells where a message ends.
out = io.StringIO()
step(out, 1, "20260413-09:20:00.000")


def verify(gold):
    raise ValueError(f"No gold targets found for at least one gold. Gold: ['{gold}'], Pred: ['12']")


def reward(k, gold):
    try:
        return verify(gold)
    except ValueError:
        logger("RewardUtils", out).warning(
            f"Reward computation failed for task math_{k}:\nprompt: solve it\nresponse: 12", exc_info=True)
        return 0.0


for k, gold in enumerate(["\\frac{1}{2}", "x+1"]):
    CLOCK[0] = f"20260413-09:20:0{k + 1}.000"
    reward(k, gold)
out.write(run_module("""
    def main():
        d = {"actor": [1]}
        return d["actor"][3]
    main()
""", "train"))
save("multiline-warnings.log", out.getvalue())

# 4. A trainer that died before its first record: only its traceback.
save("only-traceback.log", run_module("""
    import importlib
    importlib.import_module("webgym_missing_module")
""", "train"))

# 5. AReaL's local launcher (SPMD): the trainer ends, the launcher sees its process dead and raises
# JobException(reason=COMPLETED) (areal/infra/launcher/local.py wait(); re-raised when not
# relaunched): every successful run ends this way.
out = io.StringIO()
step(out, 9, "20260413-10:00:00.000")
CLOCK[0] = "20260413-10:00:01.000"
logger("StatsLogger", out).info("Training completes! Total time elapsed 3600.00.")
CLOCK[0] = "20260413-10:00:03.000"
logger("LocalLauncher", out).info("Stopping local process with signal SIGTERM, pid: [4242]")
out.write(run_module("""
    import enum
    class JobState(enum.Enum):
        COMPLETED = 3
    class JobException(Exception):
        def __init__(self, run_name, worker_type, host, reason):
            super().__init__(f"Job {run_name}:{worker_type} {reason} at node {host}")
    JobException.__module__ = "areal.infra.utils.launcher"
    def wait():
        raise JobException(run_name="webgym_trial0", worker_type="trainer", host="local", reason=JobState.COMPLETED)
    def local_main():
        try:
            wait()
        except JobException as e:
            raise e
    local_main()
""", "local"))
save("launcher-completed.log", out.getvalue())

# 7. An engine method that fails on a worker (engine_blueprint.py): traceback.print_exc(), then
# logger.error(f"Engine method '…' failed: {e}\n{traceback.format_exc()}"): one failure, printed
# twice. And webgym's [TRAJ_NONE] path: logger.warning(msg) then print(msg), msg = the exception
# and traceback.format_exc()[-1500:]: the episode is rejected, the run goes on.
out = io.StringIO()
CLOCK[0] = "20260413-11:00:00.000"


def rollout_batch():
    raise RuntimeError("CUDA error: an illegal memory access was encountered")


def call(method):
    try:
        return method()
    except Exception as e:
        out.write(traceback.format_exc())
        logger("EngineBP", out).error(f"Engine method '{method.__name__}' failed: {e}\n{traceback.format_exc()}")


call(rollout_batch)
CLOCK[0] = "20260413-11:00:01.000"
logger("EngineBP", out).info("Handled call update_weights")


def run_episode():
    raise ConnectionError("Omniboxes instance 10.0.0.7:9000 refused the connection")


def arun_episode(k):
    try:
        return run_episode()
    except Exception as e:
        msg = f"[TRAJ_NONE] task=webgym_{k} trajectory is None: {e}\n{traceback.format_exc()[-1500:]}"
        logger("WebGymWorkflow", out).warning(msg)
        out.write(msg + "\n")


for k in range(2):
    CLOCK[0] = f"20260413-11:00:0{k + 2}.000"
    arun_episode(k)
CLOCK[0] = "20260413-11:00:09.000"
logger("EngineBP", out).info("Handled call rollout_batch")
save("printed-twice.log", out.getvalue())

# 6. SGLang's own lines carry their time (sglang/srt/utils.py configure_logger: "[%(asctime)s%(prefix)s]
# %(message)s", datefmt "%Y-%m-%d %H:%M:%S", prefix " TP0" with tensor parallelism). The scheduler
# logs `Scheduler hit an exception: {traceback}` (the OOM that starts a cascade), behind merged.log's
# `[rollout] ` tag, among AReaL's records.
class SGLangFormatter(logging.Formatter):
    def __init__(self):
        super().__init__("[%(stamp)s TP0] %(message)s")

    def formatMessage(self, record):
        record.stamp = CLOCK[0]
        return super().formatMessage(record)


sg_out = io.StringIO()
sg = logging.Logger("sglang.srt.managers.scheduler")
h = logging.StreamHandler(sg_out)
h.setFormatter(SGLangFormatter())
sg.addHandler(h)


def forward_batch():
    raise MemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")


CLOCK[0] = "2026-04-13 12:00:00"
sg.info("Prefill batch. #new-seq: 4, #new-token: 8192")
CLOCK[0] = "2026-04-13 12:00:07"
try:
    forward_batch()
except MemoryError:
    sg.error(f"Scheduler hit an exception: {traceback.format_exc()}".replace("MemoryError:", "torch.OutOfMemoryError:"))
out = io.StringIO()
CLOCK[0] = "20260413-11:59:59.000"
logger("RemoteInfEngine", out).info("Server ready")
for line in sg_out.getvalue().splitlines():
    out.write("[rollout] " + line + "\n")
CLOCK[0] = "20260413-12:00:09.500"
logger("HTTPUtils", out).warning("HTTP request to http://10.0.0.7:30000/generate failed with ServerDisconnectedError")
save("sglang-oom.log", out.getvalue())
