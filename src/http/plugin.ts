// The shape of a module's routes: an encapsulated Fastify plugin given the services it calls
// by the composition root (src/composition.ts). Typed here, so no module imports app.ts.
import type { FastifyInstance } from 'fastify';
import type { Composition } from '../composition.ts';

export type RoutePlugin = (app: FastifyInstance, services: Composition) => Promise<void>;
