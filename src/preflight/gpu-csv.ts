// The two nvidia-smi answers the probe asks for, `--format=csv,noheader,nounits`:
//   --query-gpu=index,uuid,name,memory.used,memory.total
//   --query-compute-apps=pid,gpu_uuid,used_memory,process_name
// Cells are separated by ", "; a value may be `[N/A]` or `[Not Supported]`.

export interface GpuRow {
  index: number;
  uuid: string;
  name: string;
  usedMiB: number | null;
  totalMiB: number | null;
}

export interface AppRow {
  pid: number;
  gpuUuid: string;
  usedMiB: number | null;
  name: string;
}

const num = (s: string | undefined): number | null => {
  if (s === undefined) return null;
  const v = Number(s.trim());
  return s.trim() !== '' && Number.isFinite(v) ? v : null;
};

const rows = (text: string): string[][] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^No devices were found/i.test(l))
    .map((l) => l.split(',').map((c) => c.trim()));

export function parseGpuRows(text: string): GpuRow[] {
  const out: GpuRow[] = [];
  for (const c of rows(text)) {
    const index = num(c[0]);
    if (index === null || c.length < 5) continue;
    // A name never holds a comma in practice, but be safe: the last two cells are the numbers.
    const name = c.slice(2, c.length - 2).join(', ');
    out.push({ index, uuid: c[1], name, usedMiB: num(c[c.length - 2]), totalMiB: num(c[c.length - 1]) });
  }
  return out;
}

export function parseAppRows(text: string): AppRow[] {
  const out: AppRow[] = [];
  for (const c of rows(text)) {
    const pid = num(c[0]);
    if (pid === null || c.length < 4) continue;
    out.push({ pid, gpuUuid: c[1], usedMiB: num(c[2]), name: c.slice(3).join(', ') });
  }
  return out;
}
