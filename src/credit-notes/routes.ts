// HTTP for credit-notes: schema, scope, call the service, shape the reply.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';

export function registerCreditNoteRoutes(_server: FastifyInstance, _deps: AppDeps): void {}
