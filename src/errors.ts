// One error class per failure a client can act on, each with its stable `code` and status.
// Routes and services throw them; the handler in ./error-handler.ts turns them (and Fastify's
// own errors) into the one envelope.

export abstract class ApiError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  readonly param: string | undefined;
  /** Extra envelope fields where they help the client (e.g. `requiredScope`). */
  readonly extra: Record<string, unknown> | undefined;
  /** Response headers that belong to this error (e.g. `Retry-After`). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    message: string,
    options: {
      param?: string;
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.param = options.param;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

export class BodyInvalidError extends ApiError {
  readonly status = 400;
  readonly code = 'body_invalid';
}
export class ParameterMissingError extends ApiError {
  readonly status = 400;
  readonly code = 'parameter_missing';
  constructor(param: string, message = `Missing required parameter: ${param}.`) {
    super(message, { param });
  }
}
export class ParameterInvalidError extends ApiError {
  readonly status = 400;
  readonly code = 'parameter_invalid';
  constructor(param: string, message: string) {
    super(message, { param });
  }
}
export class CursorInvalidError extends ApiError {
  readonly status = 400;
  readonly code = 'cursor_invalid';
  constructor(message = 'The cursor is not valid for this list.') {
    super(message, { param: 'cursor' });
  }
}
export class IdempotencyKeyInvalidError extends ApiError {
  readonly status = 400;
  readonly code = 'idempotency_key_invalid';
}
export class ApiKeyMissingError extends ApiError {
  readonly status = 401;
  readonly code = 'api_key_missing';
}
export class ApiKeyInvalidError extends ApiError {
  readonly status = 401;
  readonly code = 'api_key_invalid';
}
export class ApiKeyRevokedError extends ApiError {
  readonly status = 401;
  readonly code = 'api_key_revoked';
}
/** `/metrics` with METRICS_TOKEN set, without that token (RFC 6750's challenge comes with it). */
export class MetricsTokenInvalidError extends ApiError {
  readonly status = 401;
  readonly code = 'metrics_token_invalid';
  constructor() {
    super('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', {
      headers: { 'www-authenticate': 'Bearer realm="metrics"' },
    });
  }
}
export class ScopeInsufficientError extends ApiError {
  readonly status = 403;
  readonly code = 'scope_insufficient';
  constructor(requiredScope: string, message?: string) {
    super(message ?? `This API key lacks the scope ${requiredScope}.`, {
      extra: { requiredScope },
    });
  }
}
export class TestModeOnlyError extends ApiError {
  readonly status = 403;
  readonly code = 'test_mode_only';
  constructor(what: string) {
    super(`${what} exist only in the test environment; use a test key.`);
  }
}
export class HttpsRequiredError extends ApiError {
  readonly status = 403;
  readonly code = 'https_required';
}
export class ResourceMissingError extends ApiError {
  readonly status = 404;
  readonly code = 'resource_missing';
  constructor(kind: string, id: string, param?: string) {
    super(`No such ${kind}: '${id}'.`, param === undefined ? {} : { param });
  }
}
export class RouteNotFoundError extends ApiError {
  readonly status = 404;
  readonly code = 'route_not_found';
}
export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  readonly code = 'method_not_allowed';
}
export class StateInvalidError extends ApiError {
  readonly status = 409;
  readonly code = 'state_invalid';
}
/** A field an e-invoice lacks or cannot use, with why (src/documents/einvoice/completeness.ts). */
export interface EinvoiceFieldReason {
  field: string;
  reason: string;
}

/**
 * An e-invoice was asked for a document whose data EN 16931 (or Peppol) refuses, or a draft
 * that is not e-invoice ready was issued under `einvoiceRequired` (`missing`: the fields).
 */
export class EinvoiceIncompleteError extends ApiError {
  readonly status = 409;
  readonly code = 'einvoice_incomplete';
  constructor(
    missing: readonly string[] | string,
    options: { reasons?: readonly EinvoiceFieldReason[]; issuing?: boolean } = {},
  ) {
    const fields = typeof missing === 'string' ? [missing] : [...missing];
    // Each field with the reasons the rules give (a field can be present and still unusable,
    // like an e-mail address where Peppol needs a network address), else just the fields.
    const explained = fields.map((field) => {
      const why = [
        ...new Set((options.reasons ?? []).filter((r) => r.field === field).map((r) => r.reason)),
      ];
      return why.length === 0 ? `${field}.` : `${field}: ${why.join(' ')}`;
    });
    const what = options.reasons
      ? explained.join(' ')
      : `It lacks (or cannot use) ${fields.join(', ')}.`;
    super(
      options.issuing
        ? `This draft cannot be issued while the setting einvoiceRequired is on: its e-invoice cannot be made. ${what} Set them (settings, customer, tax rates, the invoice) and issue again; the draft's einvoice field shows what is missing.`
        : `This document cannot be an e-invoice. ${what} Set them (settings, customer, tax rates) for documents to come; an issued document keeps the data it was issued with.`,
      { extra: { missing: fields } },
    );
  }
}
export class IdempotencyKeyInUseError extends ApiError {
  readonly status = 409;
  readonly code = 'idempotency_key_in_use';
}
export class RequestTimeoutError extends ApiError {
  readonly status = 408;
  readonly code = 'request_timeout';
}
export class BodyTooLargeError extends ApiError {
  readonly status = 413;
  readonly code = 'body_too_large';
}
export class ContentTypeUnsupportedError extends ApiError {
  readonly status = 415;
  readonly code = 'content_type_unsupported';
}
export class HeadersTooLargeError extends ApiError {
  readonly status = 431;
  readonly code = 'headers_too_large';
}
export class IdempotencyKeyReusedError extends ApiError {
  readonly status = 422;
  readonly code = 'idempotency_key_reused';
}
export class RateLimitedError extends ApiError {
  readonly status = 429;
  readonly code = 'rate_limited';
  constructor(message: string, retryAfterSeconds: number) {
    super(message, { headers: { 'retry-after': String(retryAfterSeconds) } });
  }
}
export class InternalError extends ApiError {
  readonly status = 500;
  readonly code = 'internal_error';
}
export class ServiceUnavailableError extends ApiError {
  readonly status = 503;
  readonly code = 'service_unavailable';
  constructor(message = 'The service is temporarily unavailable; retry shortly.') {
    super(message, { headers: { 'retry-after': '2' } });
  }
}

/** Every code the API answers with, for the OpenAPI document and the tests. */
export const ERROR_CODES = [
  'body_invalid',
  'parameter_missing',
  'parameter_invalid',
  'cursor_invalid',
  'idempotency_key_invalid',
  'api_key_missing',
  'api_key_invalid',
  'api_key_revoked',
  'metrics_token_invalid',
  'scope_insufficient',
  'test_mode_only',
  'https_required',
  'resource_missing',
  'route_not_found',
  'method_not_allowed',
  'state_invalid',
  'einvoice_incomplete',
  'idempotency_key_in_use',
  'request_timeout',
  'body_too_large',
  'content_type_unsupported',
  'idempotency_key_reused',
  'headers_too_large',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;
