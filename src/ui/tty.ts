// Whether the cockpit can open here. Kept apart from index.ts so commands can check before
// loading anything heavy.

/** Why the cockpit cannot open here, or null when stdin and stdout are a terminal. */
export function notInteractiveReason(
  stdin: { isTTY?: boolean } = process.stdin,
  stdout: { isTTY?: boolean } = process.stdout,
): string | null {
  if (stdin.isTTY && stdout.isTTY) return null;
  const which = !stdin.isTTY ? 'stdin' : 'stdout';
  return (
    `the cockpit needs a terminal, but ${which} is not one. ` +
    "Use the headless commands instead: 'awrl-tui runs --target T', 'awrl-tui --launch --target T --config FILE --follow', " +
    "'awrl-tui parse FILE --json', 'awrl-tui config check FILE' (see 'awrl-tui --help')."
  );
}
