// The parts of the OpenAPI document and the /docs page that no route schema holds: the
// introduction, the tags, the webhook payload, the server's address, the page's look.
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { Config } from '../config.ts';
import { WebhookPayload } from '../events/schemas.ts';

export const API_DESCRIPTION = [
  'Customers, invoices, taxes, credit notes and their documents (PDF/A-3, EN 16931 e-invoices), payments and receivables, for many tenants. Every request carries `Authorization: Bearer <API_KEY>`; each operation names the scope its key needs (**Scope:** in its description, and `x-required-scope`). JSON field names are camelCase; amounts are integers in the currency’s minor unit; timestamps are ISO 8601 in UTC; dates are `YYYY-MM-DD`.',
  '**Errors.** Every error is `{ "error": { "code", "message", "param"?, "requestId" } }`. Clients branch on `code`, which is stable across releases; `message` is for humans. An unknown path (also of another version, such as `/v2/…`) is `404 route_not_found`; a known path with another method is `405 method_not_allowed` with an `Allow` header listing the methods it has. Every response carries `Request-Id`.',
  '**Lists** are pages `{ data, nextCursor }`, newest first: pass `nextCursor` as `cursor` for the next page (null on the last). `limit` is 1 to 100 (default 25). Cursors are signed: one altered, or used with other filters, is `400 cursor_invalid`.',
  "**Retries.** Every `POST`, `PATCH` and `DELETE` accepts an `Idempotency-Key` (1–255 printable ASCII characters, kept 24 hours): a repeat of a finished request returns the stored answer with `Idempotent-Replayed: true` and changes nothing, to the same key or a key rotated from it that holds the scope; an answer that carries a secret (a new API key, a webhook signing secret) or shows a hosted invoice URL only to the very key that made the request; the same key for a different request, or a stored answer not the caller's, is `422 idempotency_key_reused`; while the first is still running, `409 idempotency_key_in_use`.",
  '**Rate limits.** Each key may make a number of requests per one-second window (default 100 for live keys, 25 for test keys; shared by every server instance). Every authenticated response carries the headers of the IETF draft "RateLimit header fields for HTTP": `RateLimit-Policy: "default";q=100;w=1` (quota per window of `w` seconds) and `RateLimit: "default";r=57;t=1` (requests remaining, seconds until the window resets). Over the limit the answer is `429 rate_limited` with `Retry-After`. After 20 failed authentications (unknown, malformed or revoked keys) from one address within a minute, every request from that address that presents a key is `429 rate_limited` until the minute has passed.',
  '**Transport.** Live keys must use HTTPS (`403 https_required` otherwise); test keys may use plain HTTP. The API sends no CORS headers: secret keys belong on servers, not in browsers.',
  '**Versions.** Breaking changes would come under `/v2`; new fields, endpoints and codes are added in place, so clients ignore fields they do not know.',
].join('\n\n');

export const TAG_DESCRIPTIONS: Record<string, string> = {
  Authentication: 'Who the presented API key is.',
  'API keys':
    'Keys of this tenant and environment: create, rotate, revoke. A key never grants a scope it lacks.',
  Customers: 'The buyers invoices are made out to.',
  'Tax rates': 'Rates applied to invoice lines; percentage, inclusive and type never change.',
  Products: 'What subscriptions and invoices bill: name, unit of measure and tax rates.',
  Prices:
    'What a product costs: one-time or recurring, per unit, tiered or by the package; amounts never change.',
  Meters:
    'What usage is measured: an event name and its aggregation; never changes what it measures.',
  Usage: 'Usage events in, each counted once per id, and summaries of a customer’s usage.',
  Invoices: 'Drafts, issue (gapless numbers), payment, void, documents and e-mail.',
  'Credit notes': 'Corrections of open or paid invoices, with their own documents.',
  Payments: 'Payments received against invoices.',
  Reports: 'Receivables and tax, adding up exactly to the documents they cover.',
  Events: 'Every change, as it happened; webhooks deliver the same.',
  Webhooks: 'Endpoints that receive events (Standard Webhooks) and their deliveries.',
  Settings: 'The tenant’s seller details, numbering, language and reminders.',
  Operations: 'Liveness, readiness, metrics and this document; no API key.',
};

/** The OpenAPI 3.1 `webhooks` section: what a webhook endpoint receives. */
export const WEBHOOKS = {
  event: {
    post: {
      operationId: 'receiveEvent',
      summary: 'An event, delivered to a webhook endpoint',
      description:
        'Standard Webhooks: the headers `webhook-id` (the event id, the same on every retry), `webhook-timestamp` (Unix seconds of this attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body" with the endpoint’s whsec_ secret>`). Verify the signature over the raw body and refuse a timestamp more than 5 minutes off. Answer 2xx within 10 s; anything else is retried.',
      tags: ['Webhooks'],
      security: [],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: WebhookPayload } },
      },
      responses: {
        '200': { description: 'Any 2xx: received.' },
        '410': { description: 'Gone: the endpoint is disabled at once.' },
      },
    },
  },
};

/**
 * The address the document names: the public URL when one is configured, else the listening
 * address (which the server knows only once it listens; see `withListeningServer`).
 */
export function documentedServer(config: Config): string {
  if (config.publicUrl) return config.publicUrl;
  const scheme = config.tlsCertFile ? 'https' : 'http';
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${scheme}://${host}:${config.port}`;
}

/** The document with `servers` naming the address the server listens on, when it names none. */
export function withListeningServer<T extends { servers?: { url: string }[] }>(
  document: T,
  config: Config,
  address: ReturnType<import('node:net').Server['address']>,
): T {
  if (config.publicUrl || typeof address !== 'object' || address === null) return document;
  return {
    ...document,
    servers: [
      { url: documentedServer({ ...config, port: address.port }), description: 'This server' },
    ],
  };
}

// The page's own mark: a document with a ruled line, in the colours of the page.
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="6" y="3" width="20" height="26" rx="3" fill="#1f4e79"/><path d="M11 11h10M11 16h10M11 21h6" stroke="#fff" stroke-width="2" stroke-linecap="round"/></svg>`;

/** The /docs page: the product's name and mark, no framework branding, no top bar. */
export const DOCS_PAGE: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  uiConfig: {
    deepLinking: true,
    layout: 'BaseLayout',
    displayOperationId: true,
    displayRequestDuration: true,
    persistAuthorization: true,
    defaultModelsExpandDepth: 0,
    filter: true,
  },
  theme: {
    title: 'Billing API — reference',
    css: [{ filename: 'billing.css', content: '.topbar { display: none; }' }],
    favicon: [
      {
        filename: 'favicon.svg',
        rel: 'icon',
        sizes: 'any',
        type: 'image/svg+xml',
        content: Buffer.from(FAVICON),
      },
    ],
  },
};
