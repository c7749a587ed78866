// A ustar archive of regular files, written here so that installing the sentinel's runtime on a
// target needs no `tar` on this machine (the target's `tar -x` reads it). PURE.

export interface TarEntry {
  /** Relative, `/`-separated; at most 255 bytes, split at a `/` into ustar's prefix and name. */
  path: string;
  mode: number;
  data: Buffer;
}

const BLOCK = 512;

/** The archive's pieces in order (headers, data, padding, the two zero blocks that end it). */
export function* tarChunks(entries: Iterable<TarEntry>): Generator<Buffer> {
  for (const e of entries) {
    yield tarHeader(e.path, e.data.length, e.mode);
    yield e.data;
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) yield Buffer.alloc(pad);
  }
  yield Buffer.alloc(2 * BLOCK);
}

export function tarHeader(path: string, size: number, mode: number): Buffer {
  const { prefix, name } = splitPath(path);
  const h = Buffer.alloc(BLOCK);
  const put = (s: string, at: number, len: number) => {
    if (Buffer.byteLength(s) > len) throw new Error(`tar: '${s}' does not fit ${len} bytes`);
    h.write(s, at, len, 'utf8');
  };
  const num = (n: number, at: number, len: number) => put(`${n.toString(8).padStart(len - 1, '0')}\0`, at, len);
  put(name, 0, 100);
  num(mode & 0o7777, 100, 8);
  num(0, 108, 8); // uid
  num(0, 116, 8); // gid
  num(size, 124, 12);
  num(0, 136, 12); // mtime: 1970, so the same files make the same archive
  put('        ', 148, 8); // the checksum field counts as spaces while summed
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  put(prefix, 345, 155);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

function splitPath(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new Error(`tar: the path '${path}' is too long for ustar`);
}
