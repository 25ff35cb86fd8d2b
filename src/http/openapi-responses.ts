// What every response of the OpenAPI document says about itself: the description of each error
// status (the codes it carries, as in docs/api.md's table) and the headers that come with it.
// The tests hold every response they receive to these (test/openapi/conformance.ts).

// The document is JSON of many shapes, walked generically.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

export const ERROR_DESCRIPTIONS: Record<string, string> = {
  400: 'The request is invalid: `body_invalid` (not a JSON object), `parameter_missing` or `parameter_invalid` (`param` names the field), `cursor_invalid` or `idempotency_key_invalid`.',
  401: 'No valid API key: `api_key_missing`, `api_key_invalid` or `api_key_revoked`; on `/metrics`, `metrics_token_invalid` (the server’s METRICS_TOKEN was not presented).',
  403: '`scope_insufficient` (`requiredScope` names the scope the key lacks) or `https_required` (a live key over plain HTTP).',
  404: '`resource_missing`: no such object in this tenant and environment; on `/metrics`, `route_not_found` (not served to this caller, or not on this port).',
  408: '`request_timeout`: the request did not arrive in time.',
  409: '`state_invalid` (not allowed in the object’s current status), `idempotency_key_in_use` (a request with this Idempotency-Key is still running: retry later) or `einvoice_incomplete` (`missing` lists the fields to set).',
  413: '`body_too_large`: the body is larger than 1 MiB.',
  415: '`content_type_unsupported`: the body is not `application/json`.',
  422: '`idempotency_key_reused`: the Idempotency-Key was used for a different request.',
  429: '`rate_limited`: too many requests for this key, too many failed authentications from this address, or (on documents, reports and pages above 25) too many of the tenant’s expensive requests waiting; retry after `Retry-After` seconds.',
  431: '`headers_too_large`: the request line and headers are larger than 16 KiB.',
  500: '`internal_error`: an unexpected failure, without details.',
  503: '`service_unavailable`: the database is unreachable or the server is shutting down; retry after `Retry-After` seconds.',
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

const rateLimit = {
  description:
    'Requests left in the current window and seconds until it resets (IETF draft "RateLimit header fields for HTTP").',
  schema: { type: 'string', examples: ['"default";r=57;t=1'] },
};
const rateLimitPolicy = {
  description: 'The key’s quota: requests (`q`) per window of `w` seconds.',
  schema: { type: 'string', examples: ['"default";q=100;w=1'] },
};
const AFTER_AUTH =
  ' Sent on errors too once the key was accepted (so not on 401, nor on a 403 `https_required` or a 429 for failed authentications).';

/** components/headers of the document. */
export const RESPONSE_HEADERS: Json = {
  'Request-Id': {
    description:
      'Identifies this request; the same value is `error.requestId`. Quote it when asking for support.',
    required: true,
    schema: {
      type: 'string',
      pattern: '^req_',
      examples: ['req_6f1d3c8e-1b7a-4c55-9d0e-2f4a8b9c7d61'],
    },
  },
  RateLimit: { ...rateLimit, required: true },
  'RateLimit-Policy': { ...rateLimitPolicy, required: true },
  RateLimitAfterAuthentication: { ...rateLimit, description: rateLimit.description + AFTER_AUTH },
  RateLimitPolicyAfterAuthentication: {
    ...rateLimitPolicy,
    description: rateLimitPolicy.description + AFTER_AUTH,
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored response of an earlier request with the same Idempotency-Key (nothing was done again). Stored errors (such as a 404) are replayed with it too.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Content-Disposition': {
    description: 'The document’s file name, e.g. `inline; filename="INV-000001.pdf"`.',
    required: true,
    schema: { type: 'string' },
  },
};

// Media types of documents downloaded as files: they carry a file name.
const DOCUMENT_TYPES = ['application/pdf', 'application/xml', 'text/csv'];

const ERROR_NAMES: Record<string, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  408: 'RequestTimeout',
  409: 'Conflict',
  413: 'ContentTooLarge',
  415: 'UnsupportedMediaType',
  422: 'IdempotencyKeyReused',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

/**
 * components/responses: one shared response per error status, the envelope with its headers.
 * The RateLimit headers are named as optional: an error may come before a key was accepted.
 */
export function errorResponseComponents(): Record<string, Json> {
  const components: Record<string, Json> = {};
  for (const [status, name] of Object.entries(ERROR_NAMES)) {
    const headers: Json = {
      'Request-Id': ref('Request-Id'),
      RateLimit: ref('RateLimitAfterAuthentication'),
      'RateLimit-Policy': ref('RateLimitPolicyAfterAuthentication'),
    };
    if (status === '429' || status === '503') headers['Retry-After'] = ref('Retry-After');
    components[name] = {
      description: ERROR_DESCRIPTIONS[status],
      headers,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
    };
  }
  return components;
}

/** The shared response of an error status, if it has one. */
export function errorResponseName(status: string): string | undefined {
  return ERROR_NAMES[status];
}

/** The headers of a successful response, by the rules the server follows. */
export function successHeaders(response: {
  authenticated: boolean;
  idempotent: boolean;
  contentTypes: string[];
}): Json {
  const { authenticated, idempotent, contentTypes } = response;
  const headers: Json = { 'Request-Id': ref('Request-Id') };
  if (authenticated) {
    headers.RateLimit = ref('RateLimit');
    headers['RateLimit-Policy'] = ref('RateLimit-Policy');
  }
  if (idempotent) headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
  const documents = contentTypes.filter((type) => DOCUMENT_TYPES.includes(type));
  if (documents.length > 0) {
    // Only when every form is a file; a report that may also be JSON names one only as CSV.
    headers['Content-Disposition'] =
      documents.length === contentTypes.length
        ? ref('Content-Disposition')
        : { ...RESPONSE_HEADERS['Content-Disposition'], required: false };
  }
  return headers;
}
