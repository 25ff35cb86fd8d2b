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
import { keeper } from './keeper.ts';

export interface AccessLogDestination {
  write(line: string): void;
}

export type AccessLog = (
  request: FastifyRequest,
  reply: FastifyReply,
  route: string | undefined,
  elapsedMs: number,
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
type Actor = FastifyRequest['actor'];

/** The actor's fields of the line, as pino writes them. */
function actorFields(actor: Actor): string {
  return `,"tenantId":${JSON.stringify(actor.tenantId)},"keyId":${JSON.stringify(actor.keyId)}`;
}

/** The access log at the log level `level`, writing to `destination`. */
export function accessLog(level: string, destination: AccessLogDestination): AccessLog {
  if (!((LEVELS[level] ?? Infinity) <= INFO)) return () => undefined;
  // pino's default bindings, written after `time`.
  const afterTime = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  // A key's tenant is the same on every request of that key.
  const keyFields = keeper((actor: Actor) => actor.keyId!, actorFields);
  const routeJson = keeper((route: string) => route, JSON.stringify);
  return (request, reply, route, elapsedMs) => {
    const actor = request.actor as Actor | null;
    const who = actor === null ? '' : actor.keyId === null ? actorFields(actor) : keyFields(actor);
    destination.write(
      `{"level":${INFO},"time":${Date.now()}${afterTime},"requestId":"${request.id}"${who},"method":"${request.method}","route":${route === undefined ? 'null' : routeJson(route)},"status":${reply.statusCode},"durationMs":${Math.round(elapsedMs * 10) / 10},"msg":"request"}\n`,
    );
  };
}
