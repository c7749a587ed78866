// Slurm's time format (sbatch --time, sinfo %l): "minutes", "minutes:seconds", "hours:minutes:seconds",
// "days-hours", "days-hours:minutes", "days-hours:minutes:seconds"; "infinite"/"UNLIMITED" = no limit.

/** Seconds; Infinity for no limit; null when it is not a Slurm time. */
export function parseSlurmTime(s: string): number | null {
  const t = s.trim();
  if (/^(infinite|unlimited)$/i.test(t)) return Infinity;
  let m = /^(\d+)-(\d+)(?::(\d+)(?::(\d+))?)?$/.exec(t);
  if (m) return +m[1] * 86400 + +m[2] * 3600 + (m[3] ? +m[3] * 60 : 0) + (m[4] ? +m[4] : 0);
  m = /^(\d+)(?::(\d+)(?::(\d+))?)?$/.exec(t);
  if (!m) return null;
  if (m[3] !== undefined) return +m[1] * 3600 + +m[2] * 60 + +m[3];
  if (m[2] !== undefined) return +m[1] * 60 + +m[2];
  return +m[1] * 60;
}
