// The API's error envelope as an exception: branch on `code`, which is stable across releases.
import type { ErrorCode, ErrorEnvelope } from './types.ts';

export class BillingApiError extends Error {
  override readonly name = 'BillingApiError';
  /** HTTP status. */
  readonly status: number;
  /** The stable error code, or `unexpected_response` when the answer was not the API's envelope. */
  readonly code: ErrorCode | 'unexpected_response';
  /** The parameter at fault, where there is one. */
  readonly param: string | undefined;
  /** The Request-Id of the failed request: quote it when asking for support. */
  readonly requestId: string | undefined;
  /** With `scope_insufficient`: the scope the key lacks. */
  readonly requiredScope: string | undefined;
  /** With `einvoice_incomplete`: the fields an e-invoice needs. */
  readonly missing: string[] | undefined;
  /** Seconds the server asked to wait (Retry-After), if it said. */
  readonly retryAfter: number | undefined;
  readonly body: ErrorEnvelope | undefined;

  constructor(
    status: number,
    body: ErrorEnvelope | undefined,
    headers: Headers,
    fallbackMessage = `HTTP ${status}`,
  ) {
    super(body?.error.message ?? fallbackMessage);
    this.status = status;
    this.body = body;
    this.code = body?.error.code ?? 'unexpected_response';
    this.param = body?.error.param;
    this.requestId = body?.error.requestId ?? headers.get('request-id') ?? undefined;
    this.requiredScope = body?.error.requiredScope;
    this.missing = body?.error.missing;
    this.retryAfter = retryAfterSeconds(headers.get('retry-after'));
  }
}

/** Retry-After as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** The envelope in a response body, if that is what it holds. */
export function parseEnvelope(text: string): ErrorEnvelope | undefined {
  try {
    const body = JSON.parse(text) as Partial<ErrorEnvelope>;
    return typeof body?.error?.code === 'string' ? (body as ErrorEnvelope) : undefined;
  } catch {
    return undefined;
  }
}
