// A webhook receiver for the tests: a node:http server on 127.0.0.1 that verifies every
// signature with the standardwebhooks library and records what it got. It can answer with any
// status, be slow, or be down (closed) and come back on the same port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  id: string;
  timestamp: string;
  body: any;
  /** The body as it arrived, and the request's headers: what a receiver verifies. */
  raw: string;
  headers: Record<string, string>;
  /** The signature verified with the secret registered for the path. */
  verified: boolean;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer. */
  hang?: boolean;
}

export type Responder = (message: Received) => Reply;

export async function startReceiver(responder: Responder = () => ({ status: 200 })) {
  const secrets = new Map<string, string>();
  const received: Received[] = [];
  let respond = responder;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const payload = Buffer.concat(chunks).toString('utf8');
      const path = request.url ?? '/';
      const headers = request.headers as Record<string, string>;
      let verified = false;
      const secret = secrets.get(path);
      try {
        if (secret) {
          new Webhook(secret).verify(payload, headers);
          verified = true;
        }
      } catch {
        verified = false;
      }
      const message: Received = {
        path,
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        body: JSON.parse(payload),
        raw: payload,
        headers,
        verified,
      };
      received.push(message);
      const reply = respond(message);
      if (reply.hang) return;
      setTimeout(() => {
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.body ?? '');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let up = true;
  const down = async () => {
    if (!up) return;
    up = false;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  after(down);
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    /** Signatures to paths are checked with this secret. */
    expectSecret: (path: string, secret: string) => secrets.set(path, secret),
    respondWith: (next: Responder) => {
      respond = next;
    },
    at: (path: string) => received.filter((m) => m.path === path),
    down,
    async up() {
      if (up) return;
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      up = true;
    },
  };
}
