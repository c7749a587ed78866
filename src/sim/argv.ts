// The trainer's command line, as `python3 webgym/train.py` parses it: argparse knows only --config
// (required); every other token is a Hydra override; any other --flag fails the argparse way
// (usage + error on stderr, exit 2). Pure.

export const USAGE = 'usage: train.py [-h] --config CONFIG\n';

export type TrainArgs =
  | { ok: true; config: string; overrides: string[] }
  | { ok: false; help: true; text: string; code: 0 }
  | { ok: false; help: false; text: string; code: 2 };

const error = (msg: string): TrainArgs => ({
  ok: false,
  help: false,
  text: `${USAGE}train.py: error: ${msg}\n`,
  code: 2,
});

export function parseTrainArgs(argv: readonly string[]): TrainArgs {
  let config: string | undefined;
  const overrides: string[] = [];
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') {
      return {
        ok: false,
        help: true,
        code: 0,
        text: `${USAGE}\noptions:\n  -h, --help       show this help message and exit\n  --config CONFIG  path to the experiment config (YAML)\n`,
      };
    }
    if (a === '--config') {
      const v = argv[i + 1];
      if (v === undefined || (v.startsWith('-') && v !== '-')) return error('argument --config: expected one argument');
      config = v;
      i++;
    } else if (a.startsWith('--config=')) {
      config = a.slice('--config='.length);
    } else if (a.startsWith('-') && a.length > 1 && !/^-\d/.test(a)) {
      unknown.push(a);
    } else {
      overrides.push(a);
    }
  }
  if (unknown.length) return error(`unrecognized arguments: ${unknown.join(' ')}`);
  if (config === undefined) return error('the following arguments are required: --config');
  return { ok: true, config, overrides };
}
