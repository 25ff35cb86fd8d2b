// HTTP for invoices: schema, scope, call the service, shape the reply.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.ts';

export function registerInvoiceRoutes(_server: FastifyInstance, _deps: AppDeps): void {}
