// The part of pngjs (pure-JS PNG codec, MIT, no dependencies) this room uses: its synchronous API.
declare module 'pngjs' {
  interface PngData {
    width: number;
    height: number;
    data: Buffer;
  }
  const pngjs: {
    PNG: {
      sync: {
        read(bytes: Buffer): PngData;
        write(png: PngData, options?: { colorType?: number; deflateLevel?: number; filterType?: number }): Buffer;
      };
    };
  };
  export default pngjs;
}
