import type { Transport } from './transport.js';
import type { OpenTransportOptions } from './options.js';
export class SshTransport {
  static async open(target: string, _opts: OpenTransportOptions): Promise<Transport> {
    throw new Error(`ssh transport to ${target}: not implemented yet`);
  }
}
