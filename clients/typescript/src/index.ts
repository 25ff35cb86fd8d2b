// The Billing API's TypeScript client. See README.md.
export { BillingClient, type ClientOptions } from './client.ts';
export { BillingApiError } from './errors.ts';
export { List } from './list.ts';
export type { ApiRequest, RequestOptions } from './transport.ts';
export type * from './types.ts';
export type { components, operations, paths } from './schema.ts';
export { verifyWebhook, WebhookVerificationError, type VerifyOptions } from './webhooks.ts';
