// Quoting argv for a remote POSIX shell. The transport is the only place that turns an argv array
// into a command string, so callers can never get it wrong (and nothing they pass gets executed).

/** POSIX single-quoting: `'` becomes `'\''`. Rejects NUL, which no command line can carry. */
export function shellQuote(s: string): string {
  if (s.includes('\0')) throw new Error('argument contains a NUL byte, which cannot be passed on a command line');
  // Plain words stay readable in logs and `ps`; everything else is single-quoted.
  if (s !== '' && /^[A-Za-z0-9_\-.,/:@%+]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** argv -> one command string for `sh -c`-style execution, with an optional `cd` first.
 *  `cd` is its own statement joined with `&&` so a missing directory fails the command. */
export function commandLine(argv: string[], cwd?: string): string {
  if (argv.length === 0) throw new Error('empty argv');
  const cmd = argv.map(shellQuote).join(' ');
  return cwd === undefined ? cmd : `cd ${shellQuote(cwd)} && ${cmd}`;
}

/** argv for running a bash script with positional arguments: `bash -c SCRIPT argv0 ARGS...`.
 *  Inside the script `$1..$n` are `args`, quoted by the transport like any argv element. */
export function remoteScript(script: string, args: string[] = [], argv0 = 'awrl'): string[] {
  return ['bash', '-c', script, argv0, ...args];
}
