import type { FastifyReply } from 'fastify';

/**
 * Sends a body that is JSON text already (a stored idempotent result, a page assembled from
 * rows' JSON, a kept whoami body): no serialiser runs, so the caller answers for its shape.
 *
 * A body several requests share is best passed encoded, as a Buffer (never changed once made):
 * Node then sends it after the head as it is. A string body is joined to the response head
 * and encoded again for every response, which for a page of a few kilobytes was a copy and an
 * encoding per request, and the garbage of both.
 */
export function sendJsonText(
  reply: FastifyReply,
  body: string | Buffer,
  status = 200,
): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}
