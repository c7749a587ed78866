// A real HTTP receiver on 127.0.0.1 (a free port) for the notification tests: it records every
// request (method, path, headers, body, when) and answers with what the test scripted, in order
// (then 200). Stopped by the test.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait.js';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpReceiver {
  port: number;
  /** `http://127.0.0.1:PORT` */
  base: string;
  received: Received[];
  /** Answers for the next requests, in order (afterwards: 200). */
  script(...answers: Scripted[]): void;
  /** Every request whose path starts with `prefix` gets this answer (before the script's). */
  route(prefix: string, answer: Scripted): void;
  /** Waits until `n` requests came. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  stop(): Promise<void>;
}

export async function startReceiver(): Promise<HttpReceiver> {
  const received: Received[] = [];
  const answers: Scripted[] = [];
  const routes: [string, Scripted][] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() });
      const path = req.url ?? '';
      const a = routes.find(([p]) => path.startsWith(p))?.[1] ?? answers.shift() ?? { status: 200 };
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    received,
    script: (...a) => answers.push(...a),
    route: (prefix, answer) => routes.push([prefix, answer]),
    waitFor: async (n, timeoutMs = 20_000) => {
      await waitFor(() => received.length >= n, { timeoutMs, what: `${n} request(s) at the receiver` });
      return received;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound, then released (connections to it are refused). */
export async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
