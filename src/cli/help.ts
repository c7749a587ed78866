import { TARGET_FLAG_LINES } from './command-help.js';
import { ERROR_CODES } from './errors.js';
import { formatExitTable } from './exit-table.js';

/** The codes, wrapped to the help text's width under their label. */
function wrapCodes(): string {
  const lines: string[] = [];
  let cur = '';
  for (const c of ERROR_CODES) {
    const next = cur ? `${cur}, ${c}` : c;
    if (next.length > 56 && cur) {
      lines.push(`${cur},`);
      cur = c;
    } else cur = next;
  }
  lines.push(cur);
  return lines.join(`\n${' '.repeat(44)}`);
}

export const HELP = `awrl-tui: a terminal cockpit for AsyncWebRL training runs

Usage:
  awrl-tui [--target T] [--check-nodes H1,H2] [--config FILE [OVERRIDE...]]
                                        open the cockpit (needs a terminal; with a config, on
                                        the Config screen to edit, pre-flight and launch it)
  awrl-tui --demo [--keep] [--sim-speed X] [--fault SPEC] [--images MODE]
                                        run the simulated trainer locally and open the cockpit on it
  awrl-tui --launch --target T --config FILE [OVERRIDE...] [--follow] [--json] [--force]
           [--skip-preflight] [--auto-resume N] [--node H1,H2] [--reconnect-timeout S]
           [--accept-new-host-key]
                                        validate, pre-flight the target, then start a run (headless)
  awrl-tui --launch --resume RUN --target T [--follow] [--json] [--skip-preflight]
                                        relaunch a run with the same config, experiment and trial
  awrl-tui watch RUN [--target T] [--check-nodes H1,H2]
                                        open the dashboard of one run
  awrl-tui follow RUN --target T [--json] [--reconnect-timeout S]
                                        follow a running run headless, from its log's start, to its
                                        end (what --launch --follow prints; exit codes alike)
  awrl-tui alerts RUN --target T [--json]
                                        a run's alert history (fired, cleared, how often, when),
                                        from its log by the watch's rules
  awrl-tui notify test [--notify URL]... [--target T] [--no-terminal-notify]
                                        send a test message through every notification channel
  awrl-tui compare A B [--target T] [--json] [--md] [--smooth W] [--keys K,...]
                                        two runs (RUN, TARGET:RUN or a log file) side by side: the
                                        config keys that differ, a summary, series by step
  awrl-tui runs [RUN] --target T [--json]
                                        list runs with their live state (a failed run: the last
                                        lines of its log)
  awrl-tui stop RUN [--target T] [--grace S] [--yes] [--check-nodes H1,H2] [--json]
                                        stop a run (SIGTERM, grace, SIGKILL; scancel on Slurm), then
                                        list leftovers (run-tagged processes, GPU holders)
  awrl-tui sentinel start|stop|status RUN --target T [--notify URL]... [--json]
                                        the run's own watch on the target: notifies with nothing
                                        attached (started by --launch --notify URL)
  awrl-tui preflight --target T --config FILE [OVERRIDE...] [--json] [--accept-new-host-key]
                                        check a config against the live target
  awrl-tui episodes RUN --target T [--version V] [--task ID] [--json]
                                        a run's dumped episodes (rollout.dump_to_file) by version
  awrl-tui episodes RUN --target T --show TASK/EP [--step N] [--version V] [--images MODE]
                                        one episode at the terminal: screenshots, actions, verdict
  awrl-tui episodes RUN --target T --pin TASK/EP [--version V]
                                        copy an episode here (train.py wipes logs/root dumps)
  awrl-tui config check FILE [OVERRIDE...] [--json]
  awrl-tui config show FILE [OVERRIDE...] [--resolved] [--json]
  awrl-tui config diff FILE [OVERRIDE...]
  awrl-tui config argv FILE [OVERRIDE...] [--remote-config PATH]
  awrl-tui parse FILE... [--json]       trainer logs -> events (JSON Lines with --json; stats
                                        values nan, inf, -inf are the strings "nan", "inf", "-inf")
  awrl-tui sim init DIR                 create a directory with a simulated webgym/train.py
  awrl-tui sim run [--sim-speed X|instant] --config FILE [OVERRIDE...]
                                        run the simulated trainer in the foreground

Targets: 'local', an ssh alias, or user@host[:port]; '-F FILE' selects an ssh config file.

Target flags (override the profile in targets.yaml; --launch, runs, stop, preflight):
${TARGET_FLAG_LINES}

Launch options:
  --follow                follow the run until it ends (progress lines; alerts as 'alert: ...' when
                          they fire and 'alert cleared: ...' when they stop; 'alert ended with
                          the run: ...' for a hang the run died in)
  --json                  JSON: the run summary, or with --follow the events as JSON Lines plus
                          {"type":"alert",...} and {"type":"alert-cleared","id",...} lines (with
                          "endedWithRun":true for a hang the run died in), and
                          {"type":"follow-problem",...} / {"type":"follow-problem-cleared",...}
                          when the log cannot be read; informational lines go to stderr
  --force                 launch even if a run of the same experiment+trial is active; with
                          --resume, resume a run that finished (it runs again from its checkpoint)
  --skip-preflight        launch even when a pre-flight check fails (recorded in run.json)
  --auto-resume N         Slurm: resubmit up to N times after TIMEOUT, PREEMPTED or NODE_FAIL
  --node H1,H2            a direct multi-node (Ray) run's hosts, given once: kept in run.json for
                          the GPU panel and leftovers (without it: found with ray list nodes)
  --reconnect-timeout S   with --follow: give up (exit 4) after S seconds without a connection (300)
  --accept-new-host-key   trust a host key seen for the first time (otherwise refused)

Cockpit and watch options:
  --check-nodes H1,H2     the other hosts of a multi-node direct (Ray) run: the GPU panel and the
                          leftover check cover them too, through one ssh fan-out on the head
  --baseline RUN|FILE     pin RUN (on any of the targets) or a local log FILE (a path with a /)
                          as the baseline: the reward, staleness and throughput charts draw it
                          beside the open run (t: by steps, training hours or samples consumed;
                          b on the Runs screen pins the selected run; s cycles the smoothing)
  --images MODE           the Trajectories screen's screenshots: auto (kitty's graphics where the
                          terminal is kitty or ghostty, through tmux with allow-passthrough on),
                          kitty, or half-block cells (blocks; sixel and iterm are drawn as blocks
                          in the cockpit, episodes --show draws them)

Notifications (follow, --launch --follow, watch, the cockpit's open run):
  --notify URL            send alerts (fired, cleared), the run's end and a watch that cannot
                          read the run for 5 min through URL (repeatable): ntfy://host/topic,
                          ntfys://, json://host[:port]/path, jsons://, slack://A/B/C,
                          discord://ID/TOKEN, exec:/path (the event's JSON on its stdin). Also
                          notify: in a targets.yaml profile, and AWRL_NOTIFY (URLs separated by
                          spaces: out of shell history and ps). Secret parts are never printed
                          (ntfy://host/***); a message not sent is said (stderr, a
                          {"type":"notify-failed",...} line with --json, the status line)
  --no-terminal-notify    no desktop notification (OSC 9/777/99, through tmux) and no tab progress

Stop options:
  --grace S               seconds between SIGTERM and SIGKILL (default 10)
  --yes, -y               also stop leftover processes tagged with the run, without asking
                          (untagged GPU holders are only listed; nothing is matched by name)
  --check-nodes H1,H2     also look for leftovers on these hosts (a direct multi-node run)
  --json                  one line on stdout: {"type":"stop","runId",...,"stoppedBy":"scancel"|
                          "sigterm"|"sigkill"|null,"state","stopRequestedAt" (the head's clock),
                          "leftovers"}; the human lines go to stderr; without --yes nothing is asked

Exit codes: 0 ok, 1 run failed, 2 bad input (fix it: retrying the same command cannot help: config
errors, bad arguments, unknown run, failed pre-flight, a refused host key or login), 3 run stopped,
4 host unreachable or connection lost beyond --reconnect-timeout (retrying may help), 130 following
ended by Ctrl-C (the run goes on), 70 internal error (a bug). By command and failure:
${formatExitTable()}

Errors with --json (any command): a failure also writes ONE line to stdout, after any events
already written, the human line still goes to stderr and the exit code is the same. Its type is
"cli-error", never "error", which is the trainer's own error event in parse/follow output:
  {"type":"cli-error","exit":N,"code":"CODE","message":"...","hint":"..."}
  CODE (stable; scripts may branch on it): ${wrapCodes()}
  (A failed run or failed checks are results, not errors: events, or "ok":false.)

Options:
  -h, --help       this text; COMMAND --help (or -h): that command's usage, options and output
  -V, --version    the version
`;
