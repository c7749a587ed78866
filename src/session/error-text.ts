// One place that turns a thrown value into the one line the cockpit shows (status line, a panel,
// the event log): the message only, never a stack trace.
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
