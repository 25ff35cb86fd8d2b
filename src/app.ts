// Builds the Fastify instance: cross-cutting plugins first, then each module's routes.
import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type onRequestHookHandler } from 'fastify';
import type { Composition } from './composition.ts';
import { registerAuth } from './http/auth.ts';
import {
  bodyStillArriving,
  limitConnections,
  lingerBeforeClose,
  serverTimeouts,
} from './http/connections.ts';
import {
  clientErrorResponse,
  registerErrorHandler,
  sendError,
  toApiError,
} from './http/error-handler.ts';
import { RouteNotFoundError, ServiceUnavailableError } from './errors.ts';
import { compilersFactory } from './http/error-serializers.ts';
import { registerExpensiveRequests } from './http/expensive-requests.ts';
import { AccessLog } from './http/observability.ts';
import { registerNotFound } from './http/not-found.ts';
import { describeRoute, finishDocument } from './http/openapi.ts';
import {
  API_DESCRIPTION,
  DOCS_PAGE,
  documentedServer,
  TAG_DESCRIPTIONS,
  WEBHOOKS,
  withListeningServer,
} from './http/openapi-info.ts';
import { registerMetrics } from './http/metrics.ts';
import { operationsRoutes } from './http/operations.ts';
import type { RoutePlugin } from './http/plugin.ts';
import { registerInputRules } from './http/route-hooks.ts';
import { ErrorEnvelope } from './http/schemas.ts';
import { priceRoutes, productRoutes } from './catalog/routes.ts';
import { customerRoutes } from './customers/routes.ts';
import { creditNoteRoutes } from './credit-notes/routes.ts';
import { eventRoutes } from './events/routes.ts';
import { invoiceRoutes } from './invoices/routes.ts';
import { keyRoutes } from './keys/routes.ts';
import { paymentRoutes } from './payments/routes.ts';
import { reportRoutes } from './reports/routes.ts';
import { subscriptionRoutes } from './subscriptions/routes.ts';
import { taxRateRoutes } from './taxes/routes.ts';
import { testClockRoutes } from './test-clocks/routes.ts';
import { meterRoutes, usageEventRoutes } from './usage/routes.ts';
import { webhookEndpointRoutes } from './webhooks/routes.ts';
import { hostedPageRoutes } from './hosted/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { consoleRoutes } from './console/routes.ts';

/** The API's routes that need a key, each module's in a scope of its own. */
const AUTHENTICATED: readonly RoutePlugin[] = [
  keyRoutes,
  customerRoutes,
  taxRateRoutes,
  productRoutes,
  priceRoutes,
  subscriptionRoutes,
  testClockRoutes,
  meterRoutes,
  usageEventRoutes,
  invoiceRoutes,
  creditNoteRoutes,
  paymentRoutes,
  reportRoutes,
  eventRoutes,
  webhookEndpointRoutes,
  settingsRoutes,
];

export const API_VERSION = '1.0.0';

// Request ids are random: a counter would tell a tenant how many requests others made
// between two of its own.
function nextRequestId(): string {
  return `req_${randomUUID()}`;
}
const BODY_LIMIT = 1024 * 1024;
// A year: clients that once reached the API over TLS never fall back to plain HTTP.
const HSTS = 'max-age=31536000';

export async function buildApp(deps: Composition): Promise<FastifyInstance> {
  const { config, log, limits } = deps;
  const app = Fastify({
    loggerInstance: log,
    logController: new AccessLog(),
    bodyLimit: BODY_LIMIT,
    // TRUST_PROXY means one proxy in front of us: the client's address and protocol are the
    // last X-Forwarded-For / X-Forwarded-Proto entries, the ones that proxy added; anything
    // before them came from the client and could be forged.
    trustProxy: config.trustProxy ? (_address: string, hop: number) => hop < 1 : false,
    requestIdHeader: false,
    genReqId: nextRequestId,
    // While closing, new requests get the envelope's 503 from the onRequest hook below.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Slow clients are cut off (./http/connections.ts); Fastify applies these two itself.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: serverTimeouts(config),
    // Requests Node cannot parse (oversized headers, broken HTTP) or that arrive too slowly get
    // the envelope too, unless part of a response already went out on the connection...
    clientErrorHandler: (error, socket) => {
      const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      const response =
        socket.destroyed || inFlight?.headersSent
          ? null
          : clientErrorResponse(error, nextRequestId(), securityHeaders);
      if (response && socket.writable) socket.write(response);
      socket.destroy(error);
    },
    // ...and so do paths the router cannot decode or that hold an over-long segment.
    frameworkErrors: (error, request, reply) => {
      reply.header('request-id', request.id).headers(securityHeaders);
      const path = request.url.split('?')[0] ?? '/';
      return sendError(
        request,
        reply,
        error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new RouteNotFoundError(
              `No route ${request.method} ${path}: a path segment is not valid percent-encoding or is longer than 200 characters.`,
            )
          : toApiError(error),
      );
    },
    schemaController: { compilersFactory },
    ajv: {
      customOptions: {
        // Refuse rather than repair: no coercion of types, no silent removal of unknown fields.
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: true,
        allErrors: false,
        // Errors carry the failing schema and value, for clearer messages.
        verbose: true,
      },
    },
    ...(config.tlsCertFile && config.tlsKeyFile
      ? {
          https: {
            ...serverTimeouts(config),
            cert: await import('node:fs/promises').then((fs) => fs.readFile(config.tlsCertFile!)),
            key: await import('node:fs/promises').then((fs) => fs.readFile(config.tlsKeyFile!)),
          },
        }
      : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app.server, config);

  // Only JSON bodies: anything else is 415 content_type_unsupported. An empty JSON body counts
  // as `{}` (many clients send the header on every POST); `__proto__` and `constructor` keys
  // are refused as body_invalid.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') done(null, {});
    else parseJson(request, text, done);
  });
  app.addSchema(ErrorEnvelope);
  registerErrorHandler(app, log);

  // Hooks on every request are plain callbacks (cheaper than async ones on the hot path).
  // A JSON API: nothing to sniff, frame or cache; and no CORS headers, ever. The policy's
  // `frame-ancestors` is what X-Frame-Options said (which CSP Level 2 supersedes), and a
  // JSON response with `default-src 'none'` loads nothing that a Referrer-Policy could govern:
  // neither is sent, as each header is work for the server and every client on every response.
  const securityHeaders: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    ...(config.tlsCertFile ? { 'strict-transport-security': HSTS } : {}),
  };
  // Behind a trusted proxy that terminates TLS, HSTS goes on what it served over HTTPS.
  const hstsFromProxy = config.trustProxy && !config.tlsCertFile;
  // The /docs page runs scripts: its policy only forbids framing it (set in its own scope).
  const docsPolicy: onRequestHookHandler = (_request, reply, done) => {
    reply.header('content-security-policy', "frame-ancestors 'none'");
    done();
  };
  // Graceful shutdown: from the moment close() begins, requests that still arrive (on open
  // keep-alive connections) are refused with 503 and Retry-After, so clients retry elsewhere.
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('request-id', request.id);
    reply.headers(securityHeaders);
    if (hstsFromProxy && request.protocol === 'https')
      reply.header('strict-transport-security', HSTS);
    if (closing) return done(new ServiceUnavailableError('The server is shutting down; retry.'));
    done();
  });
  // While closing, each response ends its connection: requests in flight when close() began
  // are finished, but their keep-alive connections would otherwise stay open for the
  // keep-alive timeout and hold close() up (until the process is forced out). So does an
  // answer given before the request's body has arrived (./http/connections.ts).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyStillArriving(request.raw)) {
      reply.header('connection', 'close');
      lingerBeforeClose(request.raw.socket);
    } else if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  registerNotFound(app);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Billing API',
        version: API_VERSION,
        description: API_DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: documentedServer(config), description: 'This server' }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An API key (`sk_test_…` or `sk_live_…`) as `Authorization: Bearer <API_KEY>`. Each operation names the scope it needs.',
          },
        },
      },
      security: [{ bearer: [] }],
      webhooks: WEBHOOKS,
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    transform: describeRoute,
    transformObject: (document) =>
      finishDocument(
        'openapiObject' in document ? document.openapiObject : document.swaggerObject,
        {
          tagDescriptions: TAG_DESCRIPTIONS,
        },
      ),
  });
  app.addHook('onClose', () => limits.close());
  app.decorate('secrets', deps.secrets);
  const readMetrics = registerMetrics(app, deps);

  // Three encapsulated scopes, each with the plugins its routes need; the scope, not the order
  // of registration, says which routes a plugin reaches. The /docs page is not the API's: none
  // of its rules for input (./http/route-hooks.ts), and a policy of its own. What needs no key
  // (operations, the hosted page) follows the rules for input. The API follows them too, every
  // route needs a key (./http/auth.ts), and expensive ones take turns per tenant
  // (./http/expensive-requests.ts).
  await app.register(async (docs) => {
    docs.addHook('onRequest', docsPolicy);
    await docs.register(fastifySwaggerUi, {
      ...DOCS_PAGE,
      transformSpecification: (document) =>
        withListeningServer(
          document as { servers?: { url: string }[] },
          config,
          app.server.address(),
        ),
    });
  });
  await app.register(async (open) => {
    registerInputRules(open);
    await open.register(operationsRoutes(readMetrics), deps);
    await open.register(hostedPageRoutes, deps);
  });
  // The console (for people, with sessions and forms): its own scope, its own rules.
  await app.register(async (pages) => consoleRoutes(pages, deps), { prefix: '/console' });
  await app.register(async (api) => {
    registerInputRules(api);
    registerAuth(api, deps.verifier, config, limits);
    registerExpensiveRequests(api, deps.expensiveRequests);
    for (const routes of AUTHENTICATED) await api.register(routes, deps);
  });

  return app;
}
