// The one composition root: every dependency (database, clock, keyring, hosted links, render
// pool, key verifier, cursor signer, rate limits, turns of expensive requests, mail kinds) and every module's service (the
// issued-document service among them, which invoices and credit notes share) is built here
// once, and handed to the HTTP layer (app.ts), the worker (jobs/) and the CLI alike. Nothing
// else constructs them, so no caller passes a renderer or the links along a call.
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createCreditNotes } from './credit-notes/credit-notes.ts';
import { creditNoteModel, invoiceCreditNotes } from './credit-notes/documents.ts';
import { creditNoteMail, CREDIT_NOTE_MAIL } from './credit-notes/mail.ts';
import type { Db } from './db/pool.ts';
import { INVITATION_MAIL, invitationMail } from './console/invitation-mail.ts';
import { findCustomers } from './console/customers.ts';
import { agingToday } from './console/reports.ts';
import { consoleInvoiceReads } from './console/invoices.ts';
import { consoleDeliveries } from './console/webhooks.ts';
import { overview } from './console/overview.ts';
import { createConsoleSessions, type ConsoleSessions } from './console/sessions.ts';
import { databaseThrottle, redisThrottle, WINDOW_SECONDS } from './console/throttle.ts';
import { createConsoleUsers, type ConsoleUsers } from './console/users.ts';
import type { RenderPool } from './documents/render-pool.ts';
import type { ModelOf } from './documents/render-queue.ts';
import { documentRenders } from './documents/renders-store.ts';
import { createIssuedDocuments, type IssuedDocuments } from './documents/service.ts';
import { reminderMail, REMINDER_MAIL } from './dunning/reminders.ts';
import { HostedLinks } from './hosted/links.ts';
import { publicBaseUrl } from './hosted/public-url.ts';
import { createHostedPage } from './hosted/service.ts';
import { ExpensiveRequests } from './http/expensive-requests.ts';
import { RateLimits } from './http/rate-limit.ts';
import { invoiceModel } from './invoices/documents.ts';
import { createInvoices } from './invoices/invoices.ts';
import { invoiceMail, INVOICE_MAIL } from './invoices/mail.ts';
import { KeyVerifier } from './keys/verifier.ts';
import type { MailKind } from './mail/outbox.ts';
import { CursorSigner } from './paging.ts';
import { createPayments } from './payments/payments.ts';
import type { SecretsKeyring } from './secrets/keyring.ts';
import {
  createPrice,
  createProduct,
  getPrice,
  getProduct,
  listPrices,
  listProducts,
  updatePrice,
  updateProduct,
} from './catalog/service.ts';
import {
  createCustomer,
  getCustomer,
  listCustomers,
  readCustomer,
  updateCustomer,
} from './customers/service.ts';
import { bindDb } from './db/bind.ts';
import { followOutbox, type WriteRequest } from './db/unit-of-work.ts';
import { getEvent, listEvents } from './events/service.ts';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from './keys/service.ts';
import { receivablesReport, taxReport } from './reports/service.ts';
import { getSettings, updateSettings } from './settings/service.ts';
import { subscriptionStanding } from './subscriptions/standing-store.ts';
import { createSubscriptions, RunActivity } from './subscriptions/subscriptions.ts';
import { createTaxRate, getTaxRate, listTaxRates, updateTaxRate } from './taxes/service.ts';
import { createTestClocks } from './test-clocks/test-clocks.ts';
import { aggregateUsage } from './usage/service.ts';
import { createUsage } from './usage/usage.ts';
import { countLateUsage, usageClosedBefore } from './subscriptions/late-usage.ts';
import type { TenantScope } from './tenancy.ts';
import { attemptsOfDelivery, listDeliveries, retryDelivery } from './webhooks/deliveries.ts';
import {
  changeEndpoint,
  createEndpoint,
  getEndpoint,
  listEndpoints,
  removeEndpoint,
} from './webhooks/endpoints.ts';
import { webhookFanOut } from './webhooks/fan-out-store.ts';
import type { WebhookEndpointCreate, WebhookEndpointUpdate } from './webhooks/schemas.ts';

// Every event a unit of work writes gets its webhook deliveries in the same statement (one
// round trip): the webhooks module owns that SQL, the unit of work runs it. Done when this
// module is loaded, which every process (server, worker, CLI) does before its first write.
followOutbox(webhookFanOut);
// And the event that issues an invoice or makes a credit note queues its documents' render.
followOutbox(documentRenders);
// And the event that makes a subscription's invoice overdue (or settles it) marks the
// subscription for the run, which sets its past_due standing.
followOutbox(subscriptionStanding);

/** What every process builds first: configuration, time, the database, keys and renderer. */
export interface Foundation {
  config: Config;
  clock: Clock;
  db: Db;
  secrets: SecretsKeyring;
  renderer: RenderPool;
  links: HostedLinks;
}

/**
 * The hosted links, with the address they point at: PUBLIC_URL, else the address the server
 * listens on once it does (`listening`), else HOST and PORT as configured.
 */
export function createHostedLinks(
  config: Config,
  secrets: SecretsKeyring,
  clock: Clock,
  listening?: () => string | undefined,
): HostedLinks {
  return new HostedLinks(secrets, publicBaseUrl(config, listening), clock);
}

/** The e-mails the outbox sends, by kind: made once, for every process that sends mail. */
export function createMailKinds({
  documents,
  links,
  clock,
  consoleUsers,
}: {
  documents: IssuedDocuments;
  links: HostedLinks;
  clock: Clock;
  /** The console's invitations (a process that sends none, such as a test's, may leave it out). */
  consoleUsers?: ConsoleUsers;
}): Readonly<Record<string, MailKind>> {
  const creditNotes = invoiceCreditNotes(documents);
  return {
    ...(consoleUsers ? { [INVITATION_MAIL]: invitationMail(consoleUsers.invitationUrl) } : {}),
    [INVOICE_MAIL]: invoiceMail(documents, links, creditNotes, clock),
    [CREDIT_NOTE_MAIL]: creditNoteMail(documents),
    [REMINDER_MAIL]: reminderMail(documents, links, creditNotes, clock),
  };
}

/** An issued invoice's or credit note's document model, from what it froze (the worker's). */
function issuedModel(clock: Clock): ModelOf {
  return async (on, kind, scope, id) =>
    kind === 'credit_note'
      ? creditNoteModel(on, scope, id)
      : (await invoiceModel(on, scope, id, clock.now())).model;
}

/** Every module's service, each made once from the foundation. */
export function createServices(foundation: Foundation) {
  const { config, clock, db, secrets } = foundation;
  const allowLoopback = config.webhooksAllowLoopback;
  const documents = createIssuedDocuments(foundation);
  const consoleUsers = createConsoleUsers(foundation);
  const withDocuments = { ...foundation, documents, consoleUsers };
  // Subscriptions measure metered items with the usage module's meters.
  const withBilling = { ...withDocuments, aggregate: aggregateUsage, activity: new RunActivity() };
  return {
    ...foundation,
    documents,
    consoleUsers,
    consoleOverview: (scope: TenantScope, timeZone: string) => overview(db, clock, scope, timeZone),
    consoleCustomerSearch: (scope: TenantScope, text: string) => findCustomers(db, scope, text),
    consoleAging: (scope: TenantScope) => agingToday(db, clock, scope),
    consoleInvoices: consoleInvoiceReads(db),
    consoleDeliveries: consoleDeliveries(db),
    issuedModel: issuedModel(clock),
    customers: bindDb(db, {
      create: createCustomer,
      get: getCustomer,
      read: readCustomer,
      list: listCustomers,
      update: updateCustomer,
    }),
    taxRates: bindDb(db, {
      create: createTaxRate,
      get: getTaxRate,
      list: listTaxRates,
      update: updateTaxRate,
    }),
    products: bindDb(db, {
      create: createProduct,
      get: getProduct,
      list: listProducts,
      update: updateProduct,
    }),
    prices: bindDb(db, {
      create: createPrice,
      get: getPrice,
      list: listPrices,
      update: updatePrice,
    }),
    apiKeys: {
      ...bindDb(db, { create: createApiKey, list: listApiKeys, revoke: revokeApiKey }),
      rotate: (write: WriteRequest, id: string, options: { expireOldInSeconds?: number | null }) =>
        rotateApiKey(db, write, id, options, clock),
    },
    events: bindDb(db, { get: getEvent, list: listEvents }),
    webhookEndpoints: {
      ...bindDb(db, {
        list: listEndpoints,
        get: getEndpoint,
        remove: removeEndpoint,
        deliveries: listDeliveries,
        attempts: attemptsOfDelivery,
      }),
      create: (write: WriteRequest, input: WebhookEndpointCreate) =>
        createEndpoint(db, secrets, write, input, allowLoopback),
      change: (write: WriteRequest, id: string, patch: WebhookEndpointUpdate) =>
        changeEndpoint(db, write, id, patch, allowLoopback),
      retryDelivery: (write: WriteRequest, endpointId: string, deliveryId: string) =>
        retryDelivery(db, clock, write, endpointId, deliveryId),
    },
    reports: {
      receivables: (scope: TenantScope, asOf: string | undefined) =>
        receivablesReport(db, clock, scope, asOf),
      tax: (scope: TenantScope, from: string, to: string) => taxReport(db, scope, from, to),
    },
    settings: bindDb(db, { get: getSettings, update: updateSettings }),
    cursors: new CursorSigner(foundation.secrets.derive('cursor signing')),
    invoices: createInvoices(withDocuments),
    creditNotes: createCreditNotes(withDocuments),
    payments: createPayments(foundation),
    hostedPage: createHostedPage(withDocuments),
    mailKinds: createMailKinds(withDocuments),
    subscriptions: createSubscriptions(withBilling),
    testClocks: createTestClocks(withBilling),
    usage: createUsage({
      db,
      clock,
      closedBefore: usageClosedBefore,
      onKept: (uow, kept) => countLateUsage(uow, aggregateUsage, kept),
    }),
  };
}

export type Services = ReturnType<typeof createServices>;

/**
 * What the HTTP layer is given: the services, the key verifier, rate limits, the turns of
 * expensive requests and the logger.
 */
export interface Composition extends Services {
  verifier: KeyVerifier;
  limits: RateLimits;
  expensiveRequests: ExpensiveRequests;
  log: FastifyBaseLogger;
  consoleSessions: ConsoleSessions;
}

/** The process's JSON logger (pino), on standard output unless a stream is given. */
export function createLogger(
  config: Config,
  stream?: { write(line: string): void },
): FastifyBaseLogger {
  if (config.logLevel === 'silent') return pino({ enabled: false });
  const options = {
    level: config.logLevel,
    // Never a key, a secret or a body: no request headers or bodies are logged at all, and
    // these paths are redacted should an error carry them.
    redact: ['req.headers.authorization', 'headers.authorization', 'secret', '*.secret'],
  };
  // Standard output written asynchronously (pino's sonic-boom): a line never waits for the
  // pipe, and lines written while a write is pending leave together. Measured under the mixed
  // load, synchronous writes were 5 % of the event loop's time.
  return pino(
    options,
    stream ? (stream as pino.DestinationStream) : pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * The HTTP layer's composition. `listenDb` carries the verifier's LISTEN connection (a direct
 * one when the pool goes through a transaction pooler); the verifier is started by the caller.
 */
export async function composeHttp(
  foundation: Foundation,
  options: { listenDb?: Db; logStream?: { write(line: string): void } } = {},
): Promise<Composition> {
  const { config, db } = foundation;
  const log = createLogger(config, options.logStream);
  const services = createServices(foundation);
  services.testClocks.advances.reportErrorsTo((error) => log.error(error, 'test clock advance'));
  const limits = await RateLimits.create(config, log, foundation.clock);
  const verifier = new KeyVerifier(db, config.keyCacheMs, options.listenDb ?? db, foundation.clock);
  const expensiveRequests = new ExpensiveRequests({
    perTenant: config.expensivePerTenant,
    total: config.expensiveTotal,
    queuePerTenant: config.expensiveQueuePerTenant,
  });
  // The console's sign-in throttle counts where the API's rate limits do: Redis when configured.
  const sharedThrottle = limits.sharedLimiter('console-sign-in', 1, WINDOW_SECONDS) !== null;
  const throttle = sharedThrottle
    ? redisThrottle((kind, points) =>
        limits.sharedLimiter(`console-sign-in-${kind}`, points, WINDOW_SECONDS)!,
      )
    : databaseThrottle(db, foundation.clock);
  const consoleSessions = createConsoleSessions({ db, clock: foundation.clock, throttle });
  return { ...services, verifier, limits, expensiveRequests, log, consoleSessions };
}
