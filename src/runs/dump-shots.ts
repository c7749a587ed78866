// Screenshots fetched from the target once: cached by path and size (a PNG rewritten with another
// size is another picture), the smallest first (many thumbnails come before one huge page), in
// batches of one command each, with a byte budget for the cache and a limit for one file.
import { remoteScript } from '../remote/quote.js';
import type { Transport } from '../remote/transport.js';
import { sh } from './remote-scripts.js';

/** A screenshot larger than this is not fetched (a viewer says so): 32 MiB. */
export const SHOT_MAX_BYTES = 32 * 1024 * 1024;

export type Shot = { ok: true; bytes: Buffer } | { ok: false; why: string };

// args: maxBytes paths… ; frames: `F size path` + bytes, `M path` (missing), `T size path` (too large)
const SHOTS_SCRIPT = sh`
max=$1; shift
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
for p in "$@"; do
  [ -f "$p" ] || { printf 'M %s\n' "$p"; continue; }
  head -c "$((max + 1))" -- "$p" > "$tmp" 2>/dev/null || { printf 'M %s\n' "$p"; continue; }
  s=$(wc -c < "$tmp")
  if [ "$s" -gt "$max" ]; then printf 'T %s %s\n' "$(stat -c %s -- "$p")" "$p"; continue; fi
  printf 'F %s %s\n' "$s" "$p"
  cat "$tmp"
done
`;

export function parseShots(out: Buffer): Map<string, Shot> {
  const got = new Map<string, Shot>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    if (nl < 0) break;
    const line = out.subarray(at, nl).toString('utf8');
    at = nl + 1;
    const sp = line.indexOf(' ');
    const tag = line.slice(0, sp);
    const rest = line.slice(sp + 1);
    if (tag === 'M') got.set(rest, { ok: false, why: 'missing (not copied, or wiped)' });
    else if (tag === 'T' || tag === 'F') {
      const sp2 = rest.indexOf(' ');
      const size = Number(rest.slice(0, sp2));
      const path = rest.slice(sp2 + 1);
      if (tag === 'T') got.set(path, { ok: false, why: `too large to fetch (${size} bytes)` });
      else {
        got.set(path, { ok: true, bytes: Buffer.from(out.subarray(at, at + size)) });
        at += size;
      }
    }
  }
  return got;
}

export interface ShotCacheOptions {
  /** Bytes of PNG kept (least recently used go first): 64 MiB. */
  budget?: number;
  /** Bytes asked in one command. */
  batchBytes?: number;
}

export class ShotCache {
  private readonly kept = new Map<string, Shot>();
  private bytes = 0;
  /** Fetches made, for the bench and tests: each is one command on the target. */
  fetches = 0;
  constructor(
    private readonly t: Transport,
    private readonly o: ShotCacheOptions = {},
  ) {}

  private key = (path: string, size: number | undefined) => `${size ?? '?'}\u0000${path}`;

  /** The shots at `paths` (sizes from the listing where known), fetched once; smallest first, with
   *  `onShot` told of each as its batch arrives. */
  async get(
    paths: string[],
    sizes: ReadonlyMap<string, number>,
    onShot?: (path: string, s: Shot) => void,
  ): Promise<Map<string, Shot>> {
    const out = new Map<string, Shot>();
    const want: string[] = [];
    for (const p of new Set(paths)) {
      const hit = this.kept.get(this.key(p, sizes.get(p)));
      if (hit) {
        this.touch(this.key(p, sizes.get(p)), hit);
        out.set(p, hit);
        onShot?.(p, hit);
      } else want.push(p);
    }
    want.sort((a, b) => (sizes.get(a) ?? Infinity) - (sizes.get(b) ?? Infinity));
    const limit = this.o.batchBytes ?? 4 * 1024 * 1024;
    for (let i = 0; i < want.length;) {
      const batch: string[] = [];
      let sum = 0;
      while (i < want.length && (batch.length === 0 || sum + (sizes.get(want[i]) ?? limit) <= limit)) {
        sum += sizes.get(want[i]) ?? limit;
        batch.push(want[i++]);
      }
      this.fetches++;
      const r = await this.t.exec(remoteScript(SHOTS_SCRIPT, [String(SHOT_MAX_BYTES), ...batch]));
      const got = r.code === 0 ? parseShots(r.stdout) : new Map<string, Shot>();
      for (const p of batch) {
        const s = got.get(p) ?? { ok: false, why: `not read (${r.stderr.toString().trim() || `exit ${r.code}`})` };
        const size = s.ok ? s.bytes.length : sizes.get(p);
        if (s.ok || got.has(p)) this.keep(this.key(p, size), s);
        out.set(p, s);
        onShot?.(p, s);
      }
    }
    return out;
  }

  private touch(k: string, s: Shot): void {
    this.kept.delete(k);
    this.kept.set(k, s);
  }

  private keep(k: string, s: Shot): void {
    this.touch(k, s);
    this.bytes += s.ok ? s.bytes.length : 0;
    const budget = this.o.budget ?? 64 * 1024 * 1024;
    for (const [old, v] of this.kept) {
      if (this.bytes <= budget) break;
      this.kept.delete(old);
      this.bytes -= v.ok ? v.bytes.length : 0;
    }
  }

  /** Bytes of PNG held now. */
  get heldBytes(): number {
    return this.bytes;
  }
}
