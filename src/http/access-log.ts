// The access log: one line per request, written by hand in pino's format.
//
// It is the one line every request writes, and pino's general path (merging the object with
// the logger's bindings, redaction, serializing each value) was the largest share of the
// cheapest request's CPU after the socket writes. The fields are few and known, so the line is
// one template: the same JSON pino writes for `log.info({ requestId, … }, 'request')`, fields
// in the same order, an absent tenant or key left out as pino leaves out undefined.
//
// Escaping costs as much as the rest of the line (JSON.stringify of a short string is ~90 ns),
// so it is done once per value that repeats: a key's ids and a route are escaped the first
// time and kept. The request id and the method go in as they are: the id is ours (letters,
// digits, `_` and `-`: app.ts), and Node's parser accepts only methods made of letters.
import { hostname } from 'node:os';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface AccessLogDestination {
  write(line: string): void;
}

export type AccessLog = (
  request: FastifyRequest,
  reply: FastifyReply,
  route: string | undefined,
) => void;

// pino's levels; the line is written at `info`.
const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};
const INFO = 30;
// Escaped values kept, at most this many of each kind (then they start again).
const MAX_KEPT = 10_000;

/** `compute(value)`, kept for the next time. */
function keeper(compute: (value: string) => string): (value: string) => string {
  const kept = new Map<string, string>();
  return (value) => {
    let found = kept.get(value);
    if (found === undefined) {
      if (kept.size >= MAX_KEPT) kept.clear();
      found = compute(value);
      kept.set(value, found);
    }
    return found;
  };
}

/** The access log at the log level `level`, writing to `destination`. */
export function accessLog(level: string, destination: AccessLogDestination): AccessLog {
  if (!((LEVELS[level] ?? Infinity) <= INFO)) return () => undefined;
  // pino's default bindings, written after `time`.
  const afterTime = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  // An actor's tenant and key are the same for every request of that key.
  const actorFields = new Map<string, string>();
  const routeJson = keeper(JSON.stringify);
  return (request, reply, route) => {
    const actor = request.actor as FastifyRequest['actor'] | null;
    let who = '';
    if (actor !== null) {
      const kept = actor.keyId === null ? undefined : actorFields.get(actor.keyId);
      who =
        kept ??
        `,"tenantId":${JSON.stringify(actor.tenantId)},"keyId":${JSON.stringify(actor.keyId)}`;
      if (kept === undefined && actor.keyId !== null) {
        if (actorFields.size >= MAX_KEPT) actorFields.clear();
        actorFields.set(actor.keyId, who);
      }
    }
    destination.write(
      `{"level":${INFO},"time":${Date.now()}${afterTime},"requestId":"${request.id}"${who},"method":"${request.method}","route":${route === undefined ? 'null' : routeJson(route)},"status":${reply.statusCode},"durationMs":${Math.round(reply.elapsedTime * 10) / 10},"msg":"request"}\n`,
    );
  };
}
