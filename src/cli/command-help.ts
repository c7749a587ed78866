// `awrl-tui COMMAND --help` (or -h): that command's usage, options and output, exit 0. Plain text
// with no imports, loaded only when asked. Each synopsis line is the one `awrl-tui --help` lists
// (test/cli/command-help.test.ts keeps them equal), the details below it are the command's own.

/** The target flags' lines, shared with the main help (help.ts). */
export const TARGET_FLAG_LINES = `  -F FILE                 ssh config file
  --ssh auto|openssh|ssh2 the ssh client: your own OpenSSH riding its ControlMaster (auto: where
                          ssh -G shows a ControlPath for the host), or the built-in one
  --workdir DIR           the AsyncWebRL checkout on the target
  --python CMD            the trainer's Python (default python3)
  --setup LINE            shell line run before the trainer (conda activate, module load, export)
  --setup-timeout S       how long the setup line (and each pre-flight step) may take there
                          before it is stopped and named (default 60)
  --backend direct|slurm  a detached process group, or sbatch
  --partition P, --nodes N, --gpus-per-node N, --cpus-per-task N, --time LIMIT, --account A
                          Slurm request
  --sbatch-arg ARG        extra sbatch option (repeatable)
  --forward-env NAME      environment variable to forward to the trainer besides what the config
                          needs (repeatable; it must be set)
  --no-forward-env NAME   do not forward NAME although the config needs it (repeatable; warned)`;

const TARGET_FLAGS = `Target flags (override the profile in targets.yaml; T is 'local', an ssh alias, user@host[:port]
or a profile name):
  --target T              where the run is
${TARGET_FLAG_LINES}`;

const EXIT_CODES = `Exit codes: 0 ok, 1 run failed, 2 bad input, 3 run stopped, 4 host unreachable or connection lost,
130 Ctrl-C (the run goes on). With --json a failure also writes one {"type":"cli-error",...} line.
The whole table: awrl-tui --help`;

/** What `parse --json` writes for a stats value: the representation scripts rely on. */
export const STATS_JSON_NOTE = `  Stats values: a finite value is a JSON number, as printed
  (1.2345e-03); JSON has no Infinity or NaN, so a non-finite value is the JSON string "nan",
  "inf" or "-inf", exactly as the trainer prints it (three different facts: nan is not inf,
  and neither is null); null is a cell that held no number at all.`;

const PARSE = `usage: awrl-tui parse FILE... [--json]

Reads trainer logs (main.log, merged.log, <role>.log, a captured controller stdout), the files
in the order given as ONE stream, through the same parser the cockpit and --follow use.

  (no option)  a short summary: steps, resumes, reward, step time, errors, warnings, finished
  --json       JSON Lines, one event per line, "type" first: step, memory, batch, resume, start,
               error, warning, finished (the fields: src/trainer-log/events.ts)
${STATS_JSON_NOTE}

  awrl-tui parse main.log --json | jq -c 'select(.type=="step") | .stats["rollout/reward"]'

Exit codes: 0 read, 2 a file cannot be read, holds no trainer record at all (not a trainer log), or a
bad argument.`;

const RUNS = `usage: awrl-tui runs [RUN] --target T [--json]

Lists the runs on a target (from their run.json) with their live state, step, reward, backend and,
for a Slurm run with --auto-resume, its job chain. A state that cannot be read shows as unknown.
With RUN, only that run (exit 2 when there is none); a failed run also shows its log's last lines.

  --json                  one JSON array on stdout, an object per run (runId, state, detail,
                          experiment, trial, backend, globalStep, totalSteps, lastReward, chain, …)
  --accept-new-host-key   trust a host key seen for the first time (otherwise refused)

${TARGET_FLAGS}

Exit codes: 0 listed, 1 the listing failed on the target, 2 bad input, 4 host unreachable. With
--json a failure also writes one {"type":"cli-error",...} line.`;

const STOP = `usage: awrl-tui stop RUN [--target T] [--grace S] [--yes] [--check-nodes H1,H2] [--json]

Stops a run (SIGTERM, then SIGKILL after the grace; scancel on Slurm), then lists leftovers on the
run's nodes: processes tagged with the run, and GPU holders. Without --target, every profile of
targets.yaml is searched for RUN.

  --grace S               seconds between SIGTERM and SIGKILL (default 10)
  --yes, -y               also stop leftover processes tagged with the run, without asking
                          (untagged GPU holders are only listed; nothing is matched by name)
  --check-nodes H1,H2     also look for leftovers on these hosts (a direct multi-node run)
  --json                  one line on stdout: {"type":"stop","runId",...,"stoppedBy":"scancel"|
                          "sigterm"|"sigkill"|null,"state","stopRequestedAt" (the head's clock),
                          "leftovers"}; the human lines go to stderr; without --yes nothing is asked
  --accept-new-host-key   trust a host key seen for the first time

${TARGET_FLAGS}

Exit codes: 0 stopped and nothing tagged left, 1 tagged leftovers remain, 2 bad input or unknown
run, 4 host unreachable. With --json a failure also writes one {"type":"cli-error",...} line.`;

const NOTIFY_OPTIONS = `  --notify URL            also send alerts, the run's end and blindness there (repeatable; see
                          awrl-tui notify --help); with AWRL_NOTIFY and targets.yaml notify:
  --no-terminal-notify    no desktop notification or tab progress on this terminal`;

const FOLLOW = `usage: awrl-tui follow RUN --target T [--json] [--reconnect-timeout S]

Follows a running run headless, from its log's first byte to the run's end: what
--launch --follow prints, with the same exit codes. Ctrl-C stops following; the run goes on.
Where the run's sentinel keeps a watch snapshot, the lines start there (the run's state
restored, the alerts standing then); --json always reads the whole log.

  --json                  the events as JSON Lines (as parse --json), plus {"type":"alert",...},
                          {"type":"alert-cleared","id",...} ("endedWithRun":true: a hang the run
                          died in), {"type":"follow-problem",...} and
                          {"type":"follow-problem-cleared",...} lines; informational lines go to stderr
${STATS_JSON_NOTE}
  --reconnect-timeout S   give up (exit 4) after S seconds without a connection (default 300)
${NOTIFY_OPTIONS}

${TARGET_FLAGS}

${EXIT_CODES}`;

const COMPARE = `usage: awrl-tui compare A B [--target T] [--json] [--md] [--smooth W] [--keys K,...]

Two runs side by side: the resolved config keys that differ (as the trainer resolves them, keys
that follow through an interpolation included), final and best reward, step time by phase,
staleness, eval rounds, and each series aligned by global step (after a resume the latest
attempt's values stand), with the difference b - a at the latest step both have.

A and B: RUN (on --target T), TARGET:RUN (a targets.yaml name, an ssh alias or user@host[:port]:
the two may be on different targets) or a local log file (a path with a '/', or a file here).
A run still running is compared as far as its log goes; a run whose log is gone is said so.

  --smooth W              TensorBoard's smoothing weight, 0 (off) to below 1 (default 0.6)
  --keys K,...            the stats keys to compare (default rollout/reward,
                          staleness/gap/offpolicy_avg, derived/step_time_s)
  --json                  one line: {"type":"compare","a":{...},"b":{...},"smoothing":W,
                          "series":{KEY:{"steps","a","b","aSmoothed","bSmoothed","delta",
                          "aHours","bHours","aSamples","bSamples","latestCommon"}},
                          "configDiff":[{"key","a","b"}],"phases":{KEY:{"a","b"}}}; nan, inf,
                          -inf as the strings "nan", "inf", "-inf"; null where a run has no value
  --md                    the human summary as Markdown, to paste into a report

${TARGET_FLAGS}

Exit codes: 0 compared, 1 a side's log is gone (the output says which), 2 bad input or unknown
run, 4 host unreachable. With --json a failure also writes one {"type":"cli-error",...} line.`;

const LAUNCH = `usage: awrl-tui --launch --target T --config FILE [OVERRIDE...] [--follow] [--json] [--force]
           [--skip-preflight] [--auto-resume N] [--node H1,H2] [--reconnect-timeout S]
           [--accept-new-host-key]
       awrl-tui --launch --resume RUN --target T [--follow] [--json] [--skip-preflight]

Validates the config and its Hydra overrides as the trainer reads them, pre-flights the target,
then starts the run (a detached process, or sbatch); --resume relaunches a run with the same
config, experiment and trial (the trainer resumes from its last recover checkpoint).

  --follow                follow the run until it ends (progress lines; alerts as 'alert: ...' when
                          they fire and 'alert cleared: ...' when they stop; 'alert ended with
                          the run: ...' for a hang the run died in)
  --json                  JSON: the run summary, or with --follow the events as JSON Lines plus
                          alert and follow-problem lines; informational lines go to stderr
${STATS_JSON_NOTE}
  --force                 launch even if a run of the same experiment+trial is active
  --skip-preflight        launch even when a pre-flight check fails (recorded in run.json)
  --auto-resume N         Slurm: resubmit up to N times after TIMEOUT, PREEMPTED or NODE_FAIL
  --node H1,H2            a direct multi-node (Ray) run's other hosts, given once (else: ray list nodes)
  --reconnect-timeout S   with --follow: give up (exit 4) after S seconds without a connection (300)
  --accept-new-host-key   trust a host key seen for the first time (otherwise refused)
${NOTIFY_OPTIONS}
                          the same URLs start the run's sentinel on the target, which sends them
                          with nothing attached (awrl-tui sentinel --help)
  --no-sentinel           do not start one (then --notify needs --follow)

${TARGET_FLAGS}

${EXIT_CODES}`;

const SENTINEL = `usage: awrl-tui sentinel start|stop|status RUN --target T [--notify URL]... [--json]

A run's sentinel: the watch (the same rules as follow) running detached on the target next to the
run, which sends the run's notifications with no cockpit attached, across its attempts, and stops
once the run's end is delivered. Its URLs reach it on its stdin only. It beats every 15 s in
sentinel.json in the run dir; \`runs\` says "sentinel ok, 12 s ago", or silent (no beat for two
periods, or its process gone, while the run runs). A full disk (or quota) under the run dir: it
beats on, \`runs\` adds "disk full since 10:02:11Z (ENOSPC)", and it sends a disk-full alert (the
run's log and checkpoints may fail), cleared once its writes succeed again. Its runtime: Node 20
or newer on the target's PATH after the setup line, else this machine's Node and the sentinel's
modules, installed once into ~/.cache/awrl-tui on the target over SSH (checked by sha256).

  start                   start one (refused when one already runs, or the run has ended)
  stop                    SIGTERM, SIGKILL after 10 s; the run is not touched
  status                  its state, pid, last heartbeat, channels (redacted) and delivery failures
  --notify URL            a channel (repeatable; AWRL_NOTIFY: URLs separated by spaces)
  --json                  one JSON line

${TARGET_FLAGS}

Exit codes: 0 done, 1 it could not start or stop on the target, 2 bad input (one already runs,
the run ended, an unknown run), 4 host unreachable.`;

const CONFIG = `usage: awrl-tui config check FILE [OVERRIDE...] [--json]
       awrl-tui config show FILE [OVERRIDE...] [--resolved] [--json]
       awrl-tui config diff FILE [OVERRIDE...]
       awrl-tui config argv FILE [OVERRIDE...] [--remote-config PATH]

The trainer config engine on its own: the YAML as OmegaConf reads it, Hydra overrides
(a.b=v, +a.b=v, ++a.b=v, ~a.b), interpolations, the schema and the rules of a valid run.

  check                   errors and warnings, each naming the file, line and key (exit 2 on errors)
  show                    the config after the overrides (--resolved: interpolations resolved)
  diff                    what the overrides change
  argv                    the exact argv that will run (--remote-config PATH: the uploaded file)
  --json                  the same as JSON; show --json is exact where plain JSON is not: an int
                          beyond 2^53 keeps all its digits, a float Python's text (1.0, 5e-06), and
                          a float JSON cannot spell is {"$float": "inf"}, {"$float": "-inf"} or
                          {"$float": "nan"}, while the STRING 'inf' stays the JSON string "inf"
                          (jq: select(type == "object" and has("$float"))); a config key that
                          begins with $ is written with one more $ ($$float)

Exit codes: 0 ok, 2 config errors, a bad argument or an unreadable file.`;

const PREFLIGHT = `usage: awrl-tui preflight --target T --config FILE [OVERRIDE...] [--json] [--accept-new-host-key]

Checks a config against the live target: the checkout, the model, the datasets, the GPUs and who
holds them, disk, the resume point. The same checks --launch runs first; the config engine runs
before anything is asked of the target.

  --json                  the checks as JSON
  --node HOST             also check another node's GPUs (repeatable)
  --step-seconds S        the typical step time, for the time-limit checks
  --accept-new-host-key   trust a host key seen for the first time
  --ssh-config FILE       as -F

${TARGET_FLAGS}

Exit codes: 0 no errors, 2 errors found (or bad input), 4 host unreachable.`;

const WATCH = `usage: awrl-tui watch RUN [--target T] [--check-nodes H1,H2]

Opens the dashboard of one run (needs a terminal). Without --target, RUN is looked for on every
profile of targets.yaml. For its state, step and reward without a terminal: awrl-tui runs.

  --check-nodes H1,H2     the other hosts of a multi-node direct (Ray) run: the GPU panel and the
                          leftover check cover them too, through one ssh fan-out on the head
  --images MODE           the Trajectories screen's screenshots: auto, kitty (Unicode placeholders,
                          through tmux with allow-passthrough on) or blocks (half-block cells)
${NOTIFY_OPTIONS}

${TARGET_FLAGS}`;

const NOTIFY = `usage: awrl-tui notify test [--notify URL]... [--target T] [--no-terminal-notify]

Sends a test message through every channel a watch would use (--notify, the target's notify: in
targets.yaml, AWRL_NOTIFY) and prints one line per channel, its secret parts hidden; at a terminal,
a desktop notification too. Exit 1 if any channel failed, 2 when there is none or a URL is not one.

Channels (Apprise's URLs): ntfy://[user:pass@]host[:port]/topic (ntfys://: https; ntfy://topic:
ntfy.sh), json://host[:port]/path (jsons://: https; Apprise's JSON body plus an "awrl" object:
event, runId, target, alertId, severity, title, advice, step, time, state), slack://A/B/C,
discord://ID/TOKEN, exec:/path/to/program (the JSON on its stdin; exit 0 is delivered).
Retried with backoff on network errors, 429 (Retry-After honoured) and 5xx.`;

const ALERTS = `usage: awrl-tui alerts RUN --target T [--json]

The run's alert history: each alert, when it first and last fired, how often, when it cleared (or
ended with the run), at which steps, with its advice. Derived from the log by the same rules as
the cockpit and follow, so it is the same whether or not anyone watched. A running run: its log
as far as it was when asked.

  --json                  one {"type":"alert-history","id","severity","title","fired","active",
                          "firstAt","lastAt","clearedAt",...} line per alert (times as the log
                          prints them)
  --baseline RUN|FILE     pin RUN (on any of the targets) or a local log FILE (a path with a /)
                          as the baseline: the reward, staleness and throughput charts draw it
                          beside the open run (t: by steps, training hours or samples consumed;
                          b on the Runs screen pins the selected run; s cycles the smoothing)

${TARGET_FLAGS}`;

const DEMO = `usage: awrl-tui --demo [--keep] [--sim-speed X] [--fault SPEC] [--images MODE]

Runs the simulated trainer on this machine through the same launch path as a real run, and opens
the cockpit on it (without a terminal: one progress line per step). q quits, stops the simulated
run and removes its files.

  --keep                  keep the run's files
  --sim-speed X           the pace: trainer seconds per real second (default 150, ~4 s a step; more is
                          faster), or 'instant'
  --fault SPEC            inject a fault: nccl-timeout@5, oom@3, stall:update_weights@4, nan-grad@6,
                          zero-reward@3-6, omniboxes@2
  --images MODE           the Trajectories screen's screenshots: auto, kitty or blocks (as the cockpit)`;

const SIM = `usage: awrl-tui sim init DIR
       awrl-tui sim run [--sim-speed X|instant] --config FILE [OVERRIDE...]

The simulated trainer: init creates a directory whose webgym/train.py is the simulator; run runs
it in the foreground, writing AReaL-format logs like the real trainer.`;

const EPISODES = `usage: awrl-tui episodes RUN --target T [--version V] [--task ID] [--json]
       awrl-tui episodes RUN --target T --show TASK/EP [--step N] [--version V] [--images MODE]
       awrl-tui episodes RUN --target T --pin TASK/EP [--version V]

The run's trajectory dumps (rollout.dump_to_file: true), read on the target from
{fileroot}/logs/{user}/{experiment}/{trial}/rollout/{version}/ (eval: test-rollout/{model step}/).
Only each record's first bytes cross the connection for the list; screenshots once, smallest first.

  --version V             one version directory (training: the group's tail version)
  --task ID               the episodes of one task (a GRPO group per version)
  --json                  one object per episode: the record's own fields (task_id, episode_idx,
                          reward, n_steps, task_info, episode_timed_out, is_blocked, ...) without
                          steps, plus version, kind (train/eval), staleness and file
  --show TASK/EP          each step: the screenshot with the click marker, the action_string, the
                          page, the model's response (folded), then the evaluator's verdicts
  --step N                only step N, larger
  --images MODE           auto|blocks|kitty|sixel|iterm|none (auto: asked of the terminal; blocks
                          are half-block cells any truecolor terminal draws; none when piped)
  --pin TASK/EP           copy the record and its screenshots to $XDG_DATA_HOME/awrl-tui/pins/RUN/

${TARGET_FLAGS}

Exit codes: 0 ok, 2 bad input, unknown run or episode, or no dumps (code no-dumps: dumping off,
not written yet, or wiped by a restart), 4 host unreachable.`;

/** Usage by command word (`--launch` and `--demo` are spelled as flags). */
export const COMMAND_HELP: Readonly<Record<string, string>> = {
  parse: PARSE,
  runs: RUNS,
  stop: STOP,
  follow: FOLLOW,
  compare: COMPARE,
  '--launch': LAUNCH,
  config: CONFIG,
  preflight: PREFLIGHT,
  watch: WATCH,
  '--demo': DEMO,
  sim: SIM,
  sentinel: SENTINEL,
  notify: NOTIFY,
  alerts: ALERTS,
  episodes: EPISODES,
};
