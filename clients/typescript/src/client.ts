// The client: one method per operation, grouped by resource, typed by the generated schema.
// Writes get an Idempotency-Key each (kept across their retries); lists are awaited for a page
// or iterated with `for await` over every item.
import { List } from './list.ts';
import { segment, type Operations } from './operations.ts';
import { subscriptionsResource } from './subscriptions.ts';
import { testClocksResource } from './test-clocks.ts';
import { metersResource, usageEventsResource } from './usage.ts';
import {
  Transport,
  withResponse,
  type ApiRequest,
  type RequestOptions,
  type TransportOptions,
  type WithResponse,
} from './transport.ts';
import type {
  Body,
  DownloadedDocument,
  ListItem,
  OperationId,
  Page,
  Query,
  Result,
} from './types.ts';

export type ClientOptions = TransportOptions;

function filenameOf(disposition: string | null): string | null {
  return disposition ? (/filename="([^"]+)"/.exec(disposition)?.[1] ?? null) : null;
}

export class BillingClient {
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
  }

  /** Any operation by method and path, for what the methods below do not cover yet. */
  request<T>(request: ApiRequest): Promise<WithResponse<T>> {
    return this.#transport.json<T>(request);
  }

  #call<Op extends OperationId>(
    method: ApiRequest['method'],
    path: string,
    options: RequestOptions & { body?: unknown; query?: ApiRequest['query'] } = {},
  ): Promise<WithResponse<Result<Op>>> {
    return this.#transport.json<Result<Op>>({ method, path, ...options });
  }

  #list<Op extends OperationId>(path: string, query: Query<Op> | undefined): List<ListItem<Op>> {
    return new List<ListItem<Op>>((cursor) =>
      this.#transport.json<Page<ListItem<Op>>>({
        method: 'GET',
        path,
        query: { ...(query as ApiRequest['query']), cursor },
      }),
    );
  }

  async #download(
    path: string,
    query: ApiRequest['query'] = {},
    options: RequestOptions = {},
  ): Promise<WithResponse<DownloadedDocument>> {
    const { response, metadata } = await this.#transport.send({
      method: 'GET',
      path,
      query,
      ...options,
    });
    const document: DownloadedDocument = {
      filename: filenameOf(response.headers.get('content-disposition')),
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      data: new Uint8Array(await response.arrayBuffer()),
    };
    return withResponse(document, metadata);
  }

  // What the resources kept in files of their own call the API through.
  readonly #operations: Operations = {
    call: (method, path, options) => this.#call(method, path, options),
    list: (path, query) => this.#list(path, query),
  };

  /** The tenant, environment and scopes of this client's key. */
  whoami(options?: RequestOptions) {
    return this.#call<'getIdentity'>('GET', '/v1/auth/whoami', options);
  }

  readonly customers = {
    create: (body: Body<'createCustomer'> = {}, options?: RequestOptions) =>
      this.#call<'createCustomer'>('POST', '/v1/customers', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getCustomer'>('GET', `/v1/customers/${segment(id)}`, options),
    update: (id: string, body: Body<'updateCustomer'>, options?: RequestOptions) =>
      this.#call<'updateCustomer'>('PATCH', `/v1/customers/${segment(id)}`, { ...options, body }),
    list: (query?: Query<'listCustomers'>) => this.#list<'listCustomers'>('/v1/customers', query),
  };

  readonly taxRates = {
    create: (body: Body<'createTaxRate'>, options?: RequestOptions) =>
      this.#call<'createTaxRate'>('POST', '/v1/tax-rates', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getTaxRate'>('GET', `/v1/tax-rates/${segment(id)}`, options),
    update: (id: string, body: Body<'updateTaxRate'>, options?: RequestOptions) =>
      this.#call<'updateTaxRate'>('PATCH', `/v1/tax-rates/${segment(id)}`, { ...options, body }),
    list: (query?: Query<'listTaxRates'>) => this.#list<'listTaxRates'>('/v1/tax-rates', query),
  };

  readonly products = {
    create: (body: Body<'createProduct'>, options?: RequestOptions) =>
      this.#call<'createProduct'>('POST', '/v1/products', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getProduct'>('GET', `/v1/products/${segment(id)}`, options),
    update: (id: string, body: Body<'updateProduct'>, options?: RequestOptions) =>
      this.#call<'updateProduct'>('PATCH', `/v1/products/${segment(id)}`, { ...options, body }),
    list: (query?: Query<'listProducts'>) => this.#list<'listProducts'>('/v1/products', query),
  };

  readonly prices = {
    create: (body: Body<'createPrice'>, options?: RequestOptions) =>
      this.#call<'createPrice'>('POST', '/v1/prices', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getPrice'>('GET', `/v1/prices/${segment(id)}`, options),
    /** Only `active`, `nickname` and `metadata`: a price's amounts never change. */
    update: (id: string, body: Body<'updatePrice'>, options?: RequestOptions) =>
      this.#call<'updatePrice'>('PATCH', `/v1/prices/${segment(id)}`, { ...options, body }),
    list: (query?: Query<'listPrices'>) => this.#list<'listPrices'>('/v1/prices', query),
  };

  readonly subscriptions = subscriptionsResource(this.#operations);

  /** Simulated time for the test environment (test keys only). */
  readonly testClocks = testClocksResource(this.#operations);

  /** What usage is measured, and summaries of a customer's usage. */
  readonly meters = metersResource(this.#operations);

  /** Usage events in: each counted once per id. */
  readonly usageEvents = usageEventsResource(this.#operations);

  readonly invoices = {
    create: (body: Body<'createInvoice'>, options?: RequestOptions) =>
      this.#call<'createInvoice'>('POST', '/v1/invoices', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getInvoice'>('GET', `/v1/invoices/${segment(id)}`, options),
    update: (id: string, body: Body<'updateInvoice'>, options?: RequestOptions) =>
      this.#call<'updateInvoice'>('PATCH', `/v1/invoices/${segment(id)}`, { ...options, body }),
    /** Deletes a draft. */
    delete: (id: string, options?: RequestOptions) =>
      this.#call<'deleteInvoice'>('DELETE', `/v1/invoices/${segment(id)}`, options),
    list: (query?: Query<'listInvoices'>) => this.#list<'listInvoices'>('/v1/invoices', query),
    addLine: (id: string, body: Body<'createInvoiceLine'>, options?: RequestOptions) =>
      this.#call<'createInvoiceLine'>('POST', `/v1/invoices/${segment(id)}/lines`, {
        ...options,
        body,
      }),
    removeLine: (id: string, lineId: string, options?: RequestOptions) =>
      this.#call<'deleteInvoiceLine'>(
        'DELETE',
        `/v1/invoices/${segment(id)}/lines/${segment(lineId)}`,
        options,
      ),
    issue: (id: string, options?: RequestOptions) =>
      this.#call<'issueInvoice'>('POST', `/v1/invoices/${segment(id)}/issue`, options),
    /** Records a payment received outside the API (partial payments add up). */
    addPayment: (id: string, body: Body<'createInvoicePayment'>, options?: RequestOptions) =>
      this.#call<'createInvoicePayment'>('POST', `/v1/invoices/${segment(id)}/payments`, {
        ...options,
        body,
      }),
    /** Records a payment of the whole amount remaining, received outside the API. */
    pay: (id: string, body: Body<'payInvoice'> = {}, options?: RequestOptions) =>
      this.#call<'payInvoice'>('POST', `/v1/invoices/${segment(id)}/pay`, { ...options, body }),
    void: (id: string, options?: RequestOptions) =>
      this.#call<'voidInvoice'>('POST', `/v1/invoices/${segment(id)}/void`, options),
    markUncollectible: (id: string, options?: RequestOptions) =>
      this.#call<'markInvoiceUncollectible'>(
        'POST',
        `/v1/invoices/${segment(id)}/mark-uncollectible`,
        options,
      ),
    send: (id: string, options?: RequestOptions) =>
      this.#call<'sendInvoice'>('POST', `/v1/invoices/${segment(id)}/send`, options),
    pdf: (id: string, options?: RequestOptions) =>
      this.#download(`/v1/invoices/${segment(id)}/pdf`, {}, options),
    eInvoice: (id: string, query: Query<'getInvoiceEInvoice'> = {}, options?: RequestOptions) =>
      this.#download(`/v1/invoices/${segment(id)}/e-invoice`, query, options),
    /** A new hostedInvoiceUrl for an issued invoice; the old one stops working at once. */
    replaceHostedLink: (id: string, options?: RequestOptions) =>
      this.#call<'createInvoiceHostedLink'>(
        'POST',
        `/v1/invoices/${segment(id)}/hosted-link`,
        options,
      ),
  };

  readonly creditNotes = {
    create: (body: Body<'createCreditNote'>, options?: RequestOptions) =>
      this.#call<'createCreditNote'>('POST', '/v1/credit-notes', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getCreditNote'>('GET', `/v1/credit-notes/${segment(id)}`, options),
    list: (query?: Query<'listCreditNotes'>) =>
      this.#list<'listCreditNotes'>('/v1/credit-notes', query),
    void: (id: string, options?: RequestOptions) =>
      this.#call<'voidCreditNote'>('POST', `/v1/credit-notes/${segment(id)}/void`, options),
    send: (id: string, options?: RequestOptions) =>
      this.#call<'sendCreditNote'>('POST', `/v1/credit-notes/${segment(id)}/send`, options),
    pdf: (id: string, options?: RequestOptions) =>
      this.#download(`/v1/credit-notes/${segment(id)}/pdf`, {}, options),
    eInvoice: (id: string, query: Query<'getCreditNoteEInvoice'> = {}, options?: RequestOptions) =>
      this.#download(`/v1/credit-notes/${segment(id)}/e-invoice`, query, options),
  };

  readonly payments = {
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getPayment'>('GET', `/v1/payments/${segment(id)}`, options),
    list: (query?: Query<'listPayments'>) => this.#list<'listPayments'>('/v1/payments', query),
    /** Takes a payment back (a bounced transfer); a paid invoice returns to open. */
    void: (id: string, options?: RequestOptions) =>
      this.#call<'voidPayment'>('POST', `/v1/payments/${segment(id)}/void`, options),
  };

  readonly reports = {
    receivables: (query: Omit<Query<'getReceivablesReport'>, 'format'> = {}) =>
      this.#call<'getReceivablesReport'>('GET', '/v1/reports/receivables', { query }),
    receivablesCsv: (query: Omit<Query<'getReceivablesReport'>, 'format'> = {}) =>
      this.#download('/v1/reports/receivables', { ...query, format: 'csv' }),
    tax: (query: Omit<Query<'getTaxReport'>, 'format'>) =>
      this.#call<'getTaxReport'>('GET', '/v1/reports/tax', { query }),
    taxCsv: (query: Omit<Query<'getTaxReport'>, 'format'>) =>
      this.#download('/v1/reports/tax', { ...query, format: 'csv' }),
  };

  readonly events = {
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getEvent'>('GET', `/v1/events/${segment(id)}`, options),
    list: (query?: Query<'listEvents'>) => this.#list<'listEvents'>('/v1/events', query),
  };

  readonly webhookEndpoints = {
    /** The answer holds the signing secret, shown this once only. */
    create: (body: Body<'createWebhookEndpoint'>, options?: RequestOptions) =>
      this.#call<'createWebhookEndpoint'>('POST', '/v1/webhook-endpoints', { ...options, body }),
    get: (id: string, options?: RequestOptions) =>
      this.#call<'getWebhookEndpoint'>('GET', `/v1/webhook-endpoints/${segment(id)}`, options),
    update: (id: string, body: Body<'updateWebhookEndpoint'>, options?: RequestOptions) =>
      this.#call<'updateWebhookEndpoint'>('PATCH', `/v1/webhook-endpoints/${segment(id)}`, {
        ...options,
        body,
      }),
    delete: (id: string, options?: RequestOptions) =>
      this.#call<'deleteWebhookEndpoint'>(
        'DELETE',
        `/v1/webhook-endpoints/${segment(id)}`,
        options,
      ),
    list: (query?: Query<'listWebhookEndpoints'>) =>
      this.#list<'listWebhookEndpoints'>('/v1/webhook-endpoints', query),
    deliveries: (id: string, query?: Query<'listWebhookEndpointDeliveries'>) =>
      this.#list<'listWebhookEndpointDeliveries'>(
        `/v1/webhook-endpoints/${segment(id)}/deliveries`,
        query,
      ),
    retryDelivery: (id: string, deliveryId: string, options?: RequestOptions) =>
      this.#call<'retryWebhookEndpointDelivery'>(
        'POST',
        `/v1/webhook-endpoints/${segment(id)}/deliveries/${segment(deliveryId)}/retry`,
        options,
      ),
  };

  readonly apiKeys = {
    /** The answer holds the new secret, shown this once only. */
    create: (body: Body<'createApiKey'>, options?: RequestOptions) =>
      this.#call<'createApiKey'>('POST', '/v1/api-keys', { ...options, body }),
    list: (query?: Query<'listApiKeys'>) => this.#list<'listApiKeys'>('/v1/api-keys', query),
    rotate: (id: string, body: Body<'rotateApiKey'> = {}, options?: RequestOptions) =>
      this.#call<'rotateApiKey'>('POST', `/v1/api-keys/${segment(id)}/rotate`, {
        ...options,
        body,
      }),
    revoke: (id: string, options?: RequestOptions) =>
      this.#call<'revokeApiKey'>('POST', `/v1/api-keys/${segment(id)}/revoke`, options),
  };

  readonly settings = {
    get: (options?: RequestOptions) => this.#call<'getSettings'>('GET', '/v1/settings', options),
    update: (body: Body<'updateSettings'>, options?: RequestOptions) =>
      this.#call<'updateSettings'>('PATCH', '/v1/settings', { ...options, body }),
  };
}
