// GET /metrics: what the server tells Prometheus, and who may read it.
//
// What: requests by route, method and status with their durations (./observability.ts), the
// render threads' CPU time and the issued documents rendered, the process's own metrics, and the backlogs of the mail outbox and
// of webhook deliveries, read from the database at each scrape (src/mail/backlog.ts,
// src/webhooks/backlog.ts) so that every instance shows the same totals.
//
// Who (docs/api.md, "Operations"):
// - METRICS_TOKEN set: `Authorization: Bearer <token>`, compared in constant time (both sides
//   hashed first, so not even the length leaks); else 401 metrics_token_invalid.
// - METRICS_LISTEN set: served by a small listener of its own on that address only; the API
//   port answers /metrics as it answers a path it does not have (404 route_not_found).
// - Neither: only a request whose connection comes from a loopback address (127.0.0.0/8, ::1,
//   ::ffff:127.x) and that no proxy forwarded. The decision is the socket's, never a header's
//   (a client can write X-Forwarded-For itself), and a forwarded request is refused even from
//   a proxy on the same host: whoever the proxy serves is not local. A proxy need not say it
//   forwarded (nginx's proxy_pass adds no header unless told to), so with TRUST_PROXY — the
//   operator's word that one stands in front — loopback proves nothing and nothing is served
//   this way: set METRICS_TOKEN or METRICS_LISTEN. Others get the 404 of a path that does not
//   exist: a probe learns nothing.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { RenderPool } from '../documents/render-pool.ts';
import type { Config } from '../config.ts';
import type { Backlog } from '../db/backlog.ts';
import type { Db } from '../db/pool.ts';
import {
  ApiError,
  InternalError,
  MethodNotAllowedError,
  MetricsTokenInvalidError,
  RouteNotFoundError,
} from '../errors.ts';
import { mailBacklog } from '../mail/backlog.ts';
import { deliveryBacklog } from '../webhooks/backlog.ts';
import { envelope } from './error-handler.ts';
import { registerRequestMetrics } from './observability.ts';
import { registerRunLagGauge } from './run-lag.ts';
import type { Subscriptions } from '../subscriptions/subscriptions.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** What /metrics shows; a METRICS_LISTEN listener serves the same (src/server.ts). */
    metricsRegistry: Registry;
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** 127.0.0.0/8, ::1, and IPv4 loopback mapped into IPv6 (::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string | undefined): boolean {
  const family = isIP(address ?? '');
  return family !== 0 && LOOPBACK.check(address!, family === 4 ? 'ipv4' : 'ipv6');
}

/** Headers a proxy adds: a request carrying one came through a proxy, not from this host. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'via'];

function fromThisHost(request: FastifyRequest, behindProxy: boolean): boolean {
  return (
    !behindProxy &&
    isLoopbackAddress(request.raw.socket.remoteAddress) &&
    !FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined)
  );
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `authorization` is `Bearer <token>`, in time that does not depend on the guess. */
export function presentsToken(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(presented), digest(token));
}

interface Backlogs {
  mail: Backlog;
  webhooks: Backlog;
}

/** The six backlog gauges, read with one pair of queries per scrape. */
function registerBacklogGauges(registry: Registry, db: Db, log: FastifyBaseLogger): void {
  // Prometheus collects every metric at once: the gauges share the scrape's one reading.
  let reading: Promise<Backlogs | null> | null = null;
  const read = () =>
    (reading ??= Promise.all([mailBacklog(db), deliveryBacklog(db)])
      .then(([mail, webhooks]) => ({ mail, webhooks }))
      .catch((error: unknown) => {
        log.warn({ err: error }, 'the backlogs could not be read for /metrics');
        return null;
      })
      .finally(() => {
        reading = null;
      }));
  const gauge = (name: string, help: string, value: (backlogs: Backlogs) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const backlogs = await read();
        // NaN: unknown (the database could not be read), never a reassuring 0.
        this.set(backlogs ? value(backlogs) : Number.NaN);
      },
    });
  gauge(
    'billing_mail_outbox_queued',
    'Messages in the mail outbox waiting to be sent (being attempted included), all tenants.',
    (b) => b.mail.waiting,
  );
  gauge(
    'billing_mail_outbox_oldest_queued_age_seconds',
    'Seconds since the oldest queued message was queued; 0 when none waits.',
    (b) => b.mail.oldestWaitingSeconds,
  );
  gauge(
    'billing_mail_outbox_failed',
    'Messages the mail server refused for good or that ran out of attempts, all tenants.',
    (b) => b.mail.failed,
  );
  gauge(
    'billing_webhook_deliveries_pending',
    'Webhook deliveries not yet made (due, backing off or being attempted), all tenants.',
    (b) => b.webhooks.waiting,
  );
  gauge(
    'billing_webhook_deliveries_oldest_pending_age_seconds',
    'Seconds since the oldest pending webhook delivery was created; 0 when none waits.',
    (b) => b.webhooks.oldestWaitingSeconds,
  );
  gauge(
    'billing_webhook_deliveries_failed',
    'Webhook deliveries that exhausted the retry schedule, all tenants.',
    (b) => b.webhooks.failed,
  );
}

/** What the metrics read: the backlogs in the database, the render pool's CPU time and count. */
export interface MetricsDeps {
  config: Config;
  db: Db;
  renderer: RenderPool;
  subscriptions: Pick<Subscriptions, 'runLag'>;
}

/** The registry /metrics shows; one per app (tests start several apps in one process). */
function createMetricsRegistry(app: FastifyInstance, deps: MetricsDeps): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerRequestMetrics(app, registry);
  // The render pool's threads are part of the process's CPU time; this says how much of it.
  new Counter({
    name: 'billing_render_cpu_seconds_total',
    help: 'CPU time the render threads spent rendering PDFs and e-invoices.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(deps.renderer.cpuSeconds);
    },
  });
  // Each issued document is rendered once (src/documents/records.ts): over a period this rises
  // by the documents issued then (and the rare repair, src/documents/repair.ts); more than that
  // is a render repeated.
  new Counter({
    name: 'billing_documents_rendered_total',
    help: 'Issued invoices and credit notes whose PDF and e-invoices this process rendered.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(deps.renderer.rendered);
    },
  });
  registerBacklogGauges(registry, deps.db, app.log);
  registerRunLagGauge(registry, deps.subscriptions.runLag, app.log);
  return registry;
}

export const METRICS_DESCRIPTION =
  'The Prometheus text exposition format: requests by route and status with their durations, the render threads’ CPU time (`billing_render_cpu_seconds_total`), the issued invoices and credit notes rendered (`billing_documents_rendered_total`: once each, by the worker or the first reader), the process’s own metrics, and the backlogs of every tenant: `billing_mail_outbox_queued`, `billing_mail_outbox_oldest_queued_age_seconds`, `billing_mail_outbox_failed`, `billing_webhook_deliveries_pending`, `billing_webhook_deliveries_oldest_pending_age_seconds`, `billing_webhook_deliveries_failed`, and the billing run’s lag, `billing_subscription_run_lag_seconds` (NaN when the database cannot be read). Protected by the server’s configuration: with METRICS_TOKEN it needs `Authorization: Bearer <METRICS_TOKEN>` (else 401 metrics_token_invalid); with METRICS_LISTEN it is served on that address only and this port answers 404 route_not_found; with neither, it answers only requests from a loopback address that no proxy forwarded (none at all with TRUST_PROXY), and 404 route_not_found to any other.';

/**
 * Builds the app's registry; returns what GET /metrics on the API port answers, once it has
 * decided the request may have it (else it throws the refusal).
 */
export function registerMetrics(
  app: FastifyInstance,
  deps: MetricsDeps,
): (request: FastifyRequest) => Promise<string> {
  const registry = createMetricsRegistry(app, deps);
  app.decorate('metricsRegistry', registry);
  const { metricsToken, metricsListen, trustProxy } = deps.config;
  return async (request: FastifyRequest): Promise<string> => {
    const path = request.url.split('?')[0];
    const absent = () => new RouteNotFoundError(`No route ${request.method} ${path}.`);
    if (metricsListen !== undefined) throw absent();
    if (metricsToken !== undefined) {
      if (!presentsToken(request.headers.authorization, metricsToken)) {
        throw new MetricsTokenInvalidError();
      }
    } else if (!fromThisHost(request, trustProxy)) throw absent();
    return registry.metrics();
  };
}

export interface MetricsListener {
  /** `http://host:port`, with the port it got. */
  url: string;
  close(): Promise<void>;
}

const PLAIN_HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };

async function answer(
  registry: Registry,
  token: string | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const requestId = `req_${randomUUID()}`;
  const path = (request.url ?? '/').split('?')[0];
  const head = request.method === 'HEAD';
  const send = (status: number, headers: Record<string, string>, body: string) => {
    response.writeHead(status, { ...PLAIN_HEADERS, 'request-id': requestId, ...headers });
    response.end(head ? undefined : body);
  };
  const refuse = (error: ApiError, headers: Record<string, string> = {}) =>
    send(
      error.status,
      { 'content-type': 'application/json; charset=utf-8', ...error.headers, ...headers },
      JSON.stringify(envelope(error, requestId)),
    );
  if (path !== '/metrics')
    return refuse(new RouteNotFoundError(`No route ${request.method} ${path}.`));
  if (request.method !== 'GET' && !head) {
    const error = new MethodNotAllowedError(
      `${request.method} is not allowed on /metrics; use GET.`,
    );
    return refuse(error, { allow: 'GET, HEAD' });
  }
  if (token !== undefined && !presentsToken(request.headers.authorization, token)) {
    return refuse(new MetricsTokenInvalidError());
  }
  let text: string;
  try {
    text = await registry.metrics();
  } catch {
    return refuse(new InternalError('The metrics could not be collected.'));
  }
  send(200, { 'content-type': registry.contentType }, text);
}

/**
 * METRICS_LISTEN: /metrics on an address of its own (plain HTTP, for a private interface),
 * and nothing else there. Started after the API listens, closed with it.
 */
export async function listenForMetrics(
  config: Config,
  registry: Registry,
): Promise<MetricsListener> {
  const { host, port } = config.metricsListen!;
  const server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
    },
    (request, response) => {
      // A client gone mid-answer: nothing left to tell it.
      answer(registry, config.metricsToken, request, response).catch(() => response.destroy());
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
