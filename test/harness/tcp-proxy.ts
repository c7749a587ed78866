// A TCP proxy the test controls, to cut the network without root tools: between the client and a
// real sshd it can pass traffic, reset every connection (RST both sides), go silent (hold: bytes are
// swallowed, nothing is closed, like a dead NAT entry), or refuse new connections (listener closed).
import { createServer, createConnection, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'hold' | 'refuse';

export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** Connections accepted so far (each client reconnect is one). */
  readonly accepted: number;
  pass(): Promise<void>;
  hold(): Promise<void>;
  refuse(): Promise<void>;
  /** RST every open connection (both sides); the mode is unchanged. */
  resetAll(): void;
  stop(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  let accepted = 0;
  const pairs = new Set<Pair>();
  let server: Server | null = null;
  let port = 0;

  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (b: Buffer) => {
      if (mode !== 'hold' && !to.destroyed) to.write(b);
    });
  };

  const onConnection = (client: Socket): void => {
    accepted++;
    const upstream = createConnection({ host: targetHost, port: targetPort });
    const pair = { client, server: upstream };
    pairs.add(pair);
    // Bytes written while held are dropped, as on a dead path; the sockets stay open.
    forward(client, upstream);
    forward(upstream, client);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  };

  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const srv = createServer(onConnection);
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => {
        const a = srv.address();
        port = typeof a === 'object' && a ? a.port : port;
        server = srv;
        resolve();
      });
    });

  // close() stops accepting at once; its callback would wait for every open connection to end.
  const unlisten = async (): Promise<void> => {
    server?.close();
    server = null;
  };

  const resetAll = (): void => {
    for (const p of [...pairs]) {
      p.client.resetAndDestroy();
      p.server.resetAndDestroy();
      pairs.delete(p);
    }
  };

  await listen();
  return {
    get port() {
      return port;
    },
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    async pass() {
      mode = 'pass';
      if (!server) await listen();
    },
    async hold() {
      mode = 'hold';
      if (!server) await listen();
    },
    async refuse() {
      mode = 'refuse';
      await unlisten();
    },
    resetAll,
    async stop() {
      resetAll();
      await unlisten();
    },
  };
}
