// Turns every failure, ours or Fastify's, into the one error envelope:
// { "error": { "code", "message", "param"?, "requestId", ...extra } }.
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { STATUS_CODES } from 'node:http';
import {
  ApiError,
  BodyInvalidError,
  BodyTooLargeError,
  ContentTypeUnsupportedError,
  HeadersTooLargeError,
  InternalError,
  ParameterInvalidError,
  ParameterMissingError,
  RequestTimeoutError,
  ServiceUnavailableError,
} from '../errors.ts';

export interface ErrorEnvelope {
  error: { code: string; message: string; param?: string; requestId: string } & Record<
    string,
    unknown
  >;
}

export function envelope(error: ApiError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      requestId,
      ...error.extra,
    },
  };
}

// Connection-level failures of PostgreSQL: the database is down, restarting or unreachable.
const DATABASE_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300', // too_many_connections
  '57014', // query_canceled (statement timeout)
  '40001', // serialization_failure: safe to retry
  '40P01', // deadlock_detected: safe to retry
]);

function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && DATABASE_UNAVAILABLE_CODES.has(code)) return true;
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/.test(
      message,
    )
  );
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  // With Ajv's `verbose` option: the failing schema and value.
  parentSchema?: { description?: string; pattern?: string };
  data?: unknown;
}

function paramPath(instancePath: string, extra?: unknown): string {
  const parts = instancePath.split('/').filter((p) => p !== '');
  if (typeof extra === 'string') parts.push(extra);
  return parts.join('.');
}

/** Ajv's first complaint, in the envelope's words. */
function fromValidation(errors: AjvError[], context: string | undefined): ApiError {
  const first = errors[0];
  if (!first) return new BodyInvalidError('The request is not valid.');
  if (context === 'body' && first.instancePath === '' && first.keyword === 'type') {
    return new BodyInvalidError('The request body must be a JSON object.');
  }
  if (first.keyword === 'required') {
    return new ParameterMissingError(paramPath(first.instancePath, first.params.missingProperty));
  }
  if (first.keyword === 'additionalProperties') {
    const param = paramPath(first.instancePath, first.params.additionalProperty);
    return new ParameterInvalidError(param, `Unknown parameter: ${param}.`);
  }
  const param = paramPath(first.instancePath) || context || 'body';
  if (context === 'querystring' && Array.isArray(first.data)) {
    return new ParameterInvalidError(param, `The query parameter ${param} may be given only once.`);
  }
  // A pattern means nothing to a reader, nor "must be integer" to one who sent "1e2", nor a
  // list of codes with a form of their own (electronic address schemes): the field's
  // description says what is expected.
  const described =
    first.keyword === 'pattern' ||
    (first.keyword === 'enum' && first.parentSchema?.pattern !== undefined) ||
    context === 'querystring';
  const expected =
    described && first.parentSchema?.description
      ? first.parentSchema.description
      : (first.message ?? 'invalid value');
  return new ParameterInvalidError(param, `Invalid ${param}: ${expected}`.replace(/\.?$/, '.'));
}

/** Maps anything thrown while handling a request to an ApiError. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError();
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError && Array.isArray(fastifyError.validation)) {
    return fromValidation(fastifyError.validation as AjvError[], fastifyError.validationContext);
  }
  switch (fastifyError?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new BodyTooLargeError('The request body is larger than 1 MiB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new ContentTypeUnsupportedError('Request bodies must be application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BodyInvalidError('The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new BodyInvalidError('The Content-Length does not match the body.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new BodyInvalidError('The request body is not valid JSON.');
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new BodyInvalidError('The request body is not valid JSON.');
  }
  if (fastifyError?.statusCode === 400) {
    return new BodyInvalidError('The request could not be read.');
  }
  return new InternalError('An internal error occurred.');
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: ApiError,
): FastifyReply {
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
  return reply.code(error.status).type('application/json').send(envelope(error, request.id));
}

export function registerErrorHandler(app: FastifyInstance, log: FastifyBaseLogger): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      log.error({ err: error, requestId: request.id }, 'request failed');
    }
    return sendError(request, reply, apiError);
  });
}

/**
 * The raw HTTP response for a request Node could not even parse (oversized headers, a broken
 * request line, a bad Content-Length or chunk) or that did not arrive in time: the same
 * envelope, Request-Id and security headers as any other answer, written to the socket, which
 * is then closed. Null when nothing can be written any more.
 */
export function clientErrorResponse(
  error: { code?: string },
  requestId: string,
  headers: Readonly<Record<string, string>>,
): string | null {
  if (error.code === 'ECONNRESET') return null;
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new HeadersTooLargeError('The request line and headers are larger than 16 KiB.')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new RequestTimeoutError(
            'The request did not arrive in time: send the headers and body without pauses.',
          )
        : new BodyInvalidError('The request is not valid HTTP/1.1 and could not be read.');
  const body = JSON.stringify(envelope(apiError, requestId));
  return [
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Request-Id: ${requestId}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
