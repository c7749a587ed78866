// Bytes -> one-char-per-byte string. Buffer is a global of the runtime (no I/O involved); its
// latin1 decoding is a plain copy, unlike TextDecoder('latin1'), which is really windows-1252.
export function latin1(chunk: Uint8Array): string {
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
}
