// The Billing API's TypeScript client. See README.md.
export { BillingClient, type ClientOptions } from './client.ts';
export { BillingApiError } from './errors.ts';
export {
  List,
  ListLimitExceededError,
  TO_ARRAY_DEFAULT_LIMIT,
  type ToArrayOptions,
} from './list.ts';
export type {
  ApiRequest,
  RequestEvent,
  RequestOptions,
  ResponseEvent,
  ResponseMetadata,
  WithResponse,
} from './transport.ts';
export { TestClockTimeoutError, type AdvanceAndWaitOptions } from './test-clocks.ts';
export type * from './types.ts';
export type { components, operations, paths } from './schema.ts';
export {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type SignedWebhook,
  type SignOptions,
  type VerifyOptions,
} from './webhooks.ts';
