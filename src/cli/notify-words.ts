// The notification URLs of a command: every `--notify URL` (repeatable), then AWRL_NOTIFY (URLs
// separated by spaces: tokens kept out of shell history and `ps`). Taken out of the words before
// the command's own parsing.
export function takeNotify(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): { urls: string[]; rest: string[] } {
  const urls: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--notify') {
      const v = args[++i];
      if (v === undefined || v.startsWith('-')) throw new Error('--notify needs a URL (ntfy://host/topic, json://…)');
      urls.push(v);
    } else if (a.startsWith('--notify=')) urls.push(a.slice('--notify='.length));
    else rest.push(a);
  }
  for (const u of (env.AWRL_NOTIFY ?? '').split(/\s+/)) if (u) urls.push(u);
  return { urls: [...new Set(urls)], rest };
}

/** A test's shorter heartbeat (AWRL_SENTINEL_PERIOD_MS), else the default. */
export function sentinelPeriodMs(env: Record<string, string | undefined> = process.env): number | undefined {
  const v = Number(env.AWRL_SENTINEL_PERIOD_MS);
  return Number.isInteger(v) && v > 0 ? v : undefined;
}
