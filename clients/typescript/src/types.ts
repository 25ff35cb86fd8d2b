// Names for the generated types (./schema.ts): the resources, and the body, query and result of
// each operation by its operationId.
import type { components, operations } from './schema.ts';

type Schemas = components['schemas'];

export type Customer = Schemas['Customer'];
export type TaxRate = Schemas['TaxRate'];
export type Product = Schemas['Product'];
export type Price = Schemas['Price'];
export type PriceTier = Schemas['PriceTier'];
export type Subscription = Schemas['Subscription'];
export type SubscriptionItem = Schemas['SubscriptionItem'];
export type SubscriptionStatus = Subscription['status'];
export type SubscriptionChangePreview = Schemas['SubscriptionChangePreview'];
export type ProposedLine = Schemas['ProposedLine'];
export type UpcomingInvoice = Schemas['UpcomingInvoice'];
export type TestClock = Schemas['TestClock'];
export type DeletedTestClock = Schemas['DeletedTestClock'];
export type Meter = Schemas['Meter'];
export type UsageEvent = Schemas['UsageEvent'];
export type UsageEventOutcome = Schemas['UsageEventOutcome'];
export type UsageSummaries = Schemas['UsageSummaries'];
export type Invoice = Schemas['Invoice'];
export type InvoiceLine = Schemas['Line'];
export type CreditNote = Schemas['CreditNote'];
export type Payment = Schemas['Payment'];
export type ReceivablesReport = Schemas['ReceivablesReport'];
export type TaxReport = Schemas['TaxReport'];
export type Event = Schemas['Event'];
export type EventType = Event['type'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookPayload = Schemas['WebhookPayload'];
export type ApiKey = Schemas['ApiKey'];
export type IssuedApiKey = Schemas['IssuedApiKey'];
export type Settings = Schemas['Settings'];
export type Identity = Schemas['Identity'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
/** Every error code of the API: stable across releases, the thing to branch on. */
export type ErrorCode = ErrorEnvelope['error']['code'];

export type OperationId = keyof operations;

/** The JSON body an operation takes (`{}` for actions that take none). */
export type Body<Op extends OperationId> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The query parameters of an operation. */
export type Query<Op extends OperationId> = operations[Op]['parameters'] extends {
  query?: infer Q;
}
  ? NonNullable<Q>
  : never;

type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;

/** What an operation answers on success (200, 201, or 202 for work it goes on with), as JSON. */
export type Result<Op extends OperationId> = operations[Op]['responses'] extends infer R
  ? R extends { 201: infer Created }
    ? JsonOf<Created>
    : R extends { 200: infer Ok }
      ? JsonOf<Ok>
      : R extends { 202: infer Accepted }
        ? JsonOf<Accepted>
        : never
  : never;

/** One page of a list. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The items of a list operation's pages. */
export type ListItem<Op extends OperationId> = Result<Op> extends Page<infer T> ? T : never;

/** A document the API serves as a file (PDF, XML). */
export interface DownloadedDocument {
  /** From Content-Disposition, e.g. `INV-000001.pdf`. */
  filename: string | null;
  contentType: string;
  data: Uint8Array;
}
