import type { FastifyReply } from 'fastify';

/**
 * Sends a body that is JSON text already (a stored idempotent result, a page assembled from
 * rows' JSON, a kept whoami body): no serialiser runs, so the caller answers for its shape.
 */
export function sendJsonText(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}
