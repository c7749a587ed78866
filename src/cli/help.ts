export const HELP = `awrl-tui: a terminal cockpit for AsyncWebRL training runs

Usage:
  awrl-tui                              open the cockpit (needs a terminal)
  awrl-tui --demo [--keep] [--sim-speed X]
                                        run the simulated trainer locally and open the cockpit on it
  awrl-tui --launch --target T --config FILE [OVERRIDE...] [--follow] [--json] [--force]
                                        validate, then start a run on a target (headless)
  awrl-tui --launch --resume RUN --target T
                                        relaunch a run with the same config, experiment and trial
  awrl-tui watch RUN [--target T]       open the dashboard of one run
  awrl-tui runs --target T [--json]     list runs on a target with their live state
  awrl-tui stop RUN [--target T] [--yes]
                                        stop a run (SIGTERM, grace, SIGKILL; scancel on Slurm)
  awrl-tui preflight --target T --config FILE [OVERRIDE...] [--json]
                                        check a config against the live target
  awrl-tui config check FILE [OVERRIDE...] [--json]
  awrl-tui config show FILE [OVERRIDE...] [--resolved] [--json]
  awrl-tui config diff FILE [OVERRIDE...]
  awrl-tui config argv FILE [OVERRIDE...] [--remote-config PATH]
  awrl-tui parse FILE... [--json]       trainer logs -> events (JSON Lines with --json)
  awrl-tui sim init DIR                 create a directory with a simulated webgym/train.py
  awrl-tui sim run [--sim-speed X|instant] --config FILE [OVERRIDE...]
                                        run the simulated trainer in the foreground

Targets: 'local', an ssh alias, or user@host[:port]; '-F FILE' selects an ssh config file.

Exit codes: 0 ok, 1 run failed, 2 bad input (config errors, bad arguments), 3 run stopped,
4 connection lost beyond --reconnect-timeout.

Options:
  -h, --help       this text
  -V, --version    the version
`;
