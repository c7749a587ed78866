// A Buffer view of caller bytes (no copy). Buffer is a global of the runtime (no I/O involved):
// its indexOf is a memchr and its latin1 decoding a plain copy, unlike TextDecoder('latin1'),
// which is really windows-1252.
export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

type Latin1Sliceable = Buffer & { latin1Slice?: (start: number, end: number) => string };

/** Bytes [start, end) as a latin1 string; the direct binding skips Buffer#toString's checks. */
export function latin1Slice(b: Uint8Array, start: number, end: number): string {
  const buf = asBuffer(b) as Latin1Sliceable;
  return buf.latin1Slice ? buf.latin1Slice(start, end) : buf.toString('latin1', start, end);
}
