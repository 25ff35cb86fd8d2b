// Slow and idle clients. One socket costs the server memory and a file descriptor for as long
// as it is open, so a client may not keep one by sending its request slowly (a body trickled a
// byte at a time would hold it for as long as the client likes) or open more than the server
// can carry:
//
// - REQUEST_TIMEOUT_MS (default 25 s): the headers and body of a request must have arrived
//   this long after it began; HEADERS_TIMEOUT_MS (default 10 s) bounds the headers alone.
//   A client too slow is answered 408 request_timeout (while nothing of a response was sent)
//   and its connection is closed. Handling time does not count: the clock stops when the
//   request has arrived.
// - KEEP_ALIVE_TIMEOUT_MS (default 72 s, Fastify's: longer than the 60 s idle timeout of
//   common proxies and load balancers, so that they, not we, close an idle connection and
//   never reuse one we are closing): how long a connection may wait for its next request
//   (Node allows a second more before it closes).
// - MAX_CONNECTIONS (default 10 000, per process): connections beyond it are closed as soon
//   as they are accepted, without a response.
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.ts';

type Timeouts = Pick<Config, 'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs'>;

/**
 * How often Node looks for requests past their timeouts. It does so only on this sweep (every
 * 30 s by default), so a request could outlive its timeout by that much: a sweep a second, or
 * four per shortest timeout when that is shorter, keeps a slow client's connection within a
 * second of its timeout (the contract: cut off within 30 s of the request's start). A sweep
 * walks only the connections in the middle of a request.
 */
export function connectionsCheckingInterval(config: Timeouts): number {
  const shortest = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  return Math.max(25, Math.min(1000, Math.floor(shortest / 4)));
}

/**
 * Options for http.createServer and https.createServer: the checking interval can only be set
 * when the server is made.
 */
export function serverTimeouts(config: Timeouts) {
  return {
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: config.headersTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionsCheckingInterval: connectionsCheckingInterval(config),
  };
}

/** Caps the connections open at once on the server. */
export function limitConnections(server: Server, config: Pick<Config, 'maxConnections'>): void {
  server.maxConnections = config.maxConnections;
}

/**
 * True when a request is answered before its body has arrived (a refusal by authentication,
 * say). Its connection is then closed with the answer: kept open, Node would go on reading and
 * discarding the body, as slowly as the client sends it, until the request timeout fires and
 * sends a second, unasked-for answer.
 */
export function bodyStillArriving(request: IncomingMessage): boolean {
  if (request.complete) return false;
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

/** How long a connection answered before its body arrived goes on reading it (below). */
export const LINGER_MS = 2000;

/**
 * Closes the connection of a request answered before its body arrived (a body over 1 MiB, a
 * refusal by authentication) the way nginx's lingering close and Go's server do: our side is
 * shut after the answer, then what the client still sends is read and thrown away until it
 * closes its side or LINGER_MS pass. Closed at once instead, the client's unsent body would
 * meet a reset, and a client still writing it (fetch, most HTTP libraries) reports the reset,
 * "write EPIPE", and never reads the answer: 3 % of 1 MiB bodies on loopback did.
 *
 * Node closes a `Connection: close` answer's socket with `destroySoon()` once the answer is
 * written; this socket's own version ends it and destroys it later. The HTTP parser, still
 * attached, reads the rest of the body into the request, which Node discards.
 */
export function lingerBeforeClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    this.once('close', () => clearTimeout(timer));
  };
}
