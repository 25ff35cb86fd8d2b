// One request to the API, retried where a retry is safe and may succeed. A retry is safe for a
// read, and for a write that carries an Idempotency-Key: the client generates one for every
// write (once, sent with every attempt), so the server does the work once and replays its
// answer to a repeat. Such requests are retried after a network error or timeout and on 500,
// 502, 503 and 504. A write sent without a key (`idempotencyKey: false`) is never retried on
// those: the server may have done the work. Every request is retried on 429 (refused before
// any work) and on `409 idempotency_key_in_use` (the first attempt is still running). Waits grow
// exponentially with jitter, and never undercut the server's Retry-After.
import { BillingApiError, parseEnvelope, retryAfterSeconds } from './errors.ts';

/** What the API's answer said about itself: on every result as `lastResponse`. */
export interface ResponseMetadata {
  /** HTTP status of the answer. */
  status: number;
  /** The answer's Request-Id: quote it when asking for support. */
  requestId: string | null;
  /** True when the server replayed the stored answer to an earlier request with the same key. */
  idempotentReplayed: boolean;
  /** The Idempotency-Key the request was sent with (null for reads and keyless writes). */
  idempotencyKey: string | null;
  /** How many attempts it took (1 when the first one succeeded). */
  attempts: number;
  headers: Headers;
}

/** A result of the API, with its answer's metadata as a non-enumerable `lastResponse`. */
export type WithResponse<T> = T & { readonly lastResponse: ResponseMetadata };

/** Given to `onRequest` before each attempt is sent. */
export interface RequestEvent {
  method: ApiRequest['method'];
  url: string;
  /** 0 for the first attempt, 1 for the first retry, … */
  attempt: number;
  idempotencyKey: string | null;
}

/** Given to `onResponse` after each attempt, answered or failed. */
export interface ResponseEvent extends RequestEvent {
  /** The HTTP status, or null when no answer came (network error, timeout). */
  status: number | null;
  requestId: string | null;
  idempotentReplayed: boolean;
  /** Milliseconds from sending this attempt to its answer's headers (or its failure). */
  elapsedMs: number;
  /** Whether the client will try again after this attempt. */
  willRetry: boolean;
  /** The network error, when no answer came. */
  error?: unknown;
}

export interface TransportOptions {
  apiKey: string;
  /** Where the API is, e.g. `https://billing.example.com` (no `/v1`). */
  baseUrl: string;
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** The first back-off step (default 500 ms); each later one doubles, up to `maxDelayMs`. */
  baseDelayMs?: number;
  /** The longest wait between attempts (default 30 s); a longer Retry-After is not waited for. */
  maxDelayMs?: number;
  /** Each attempt's time limit (default 60 s); an attempt that times out is retried. */
  timeoutMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Sent as User-Agent where the runtime allows. */
  userAgent?: string;
  /** Called before each attempt (logging, metrics). A hook that throws fails the call. */
  onRequest?: (event: RequestEvent) => void;
  /** Called after each attempt, answered or not (logging, metrics). A hook that throws fails the call. */
  onResponse?: (event: ResponseEvent) => void;
}

export interface RequestOptions {
  /**
   * Use this Idempotency-Key instead of a generated one (e.g. one stored with your own record),
   * or `false` to send the write without one; it is then not retried after a network error or
   * a 5xx answer.
   */
  idempotencyKey?: string | false;
  /** Cancels the request and its retries. */
  signal?: AbortSignal;
}

export interface ApiRequest extends RequestOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

/** Answers a retry with the same key may change: the server failed or was unavailable. */
const SERVER_FAILURES = new Set([500, 502, 503, 504]);

/** Waits `ms`, or rejects with the signal's reason once it aborts. */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

type Settings = Required<Omit<TransportOptions, 'userAgent' | 'onRequest' | 'onResponse'>> &
  Pick<TransportOptions, 'userAgent' | 'onRequest' | 'onResponse'>;

/** Attaches the metadata to a JSON result without changing what it serialises to or equals. */
export function withResponse<T>(value: T, metadata: ResponseMetadata): WithResponse<T> {
  if (typeof value === 'object' && value !== null) {
    Object.defineProperty(value, 'lastResponse', {
      value: metadata,
      enumerable: false,
      configurable: true,
    });
  }
  return value as WithResponse<T>;
}

export class Transport {
  readonly #options: Settings;

  constructor(options: TransportOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required');
    if (!options.baseUrl) throw new TypeError('baseUrl is required');
    this.#options = {
      maxRetries: 3,
      baseDelayMs: 500,
      maxDelayMs: 30_000,
      timeoutMs: 60_000,
      fetch: (input, init) => globalThis.fetch(input, init),
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
    };
  }

  /** The wait before retry number `attempt` (0 for the first retry): exponential, jittered. */
  backoff(attempt: number, retryAfter?: number): number {
    const step = Math.min(this.#options.maxDelayMs, this.#options.baseDelayMs * 2 ** attempt);
    // Half fixed, half random: retries of many clients spread out, none comes back at once.
    const jittered = step / 2 + Math.random() * (step / 2);
    return retryAfter === undefined ? jittered : Math.max(retryAfter * 1000, jittered);
  }

  #url(path: string, query: ApiRequest['query']): string {
    const url = new URL(this.#options.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  /** Sends the request, retrying as described above; the successful response, or a BillingApiError. */
  async send(request: ApiRequest): Promise<{ response: Response; metadata: ResponseMetadata }> {
    const write = request.method !== 'GET';
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.apiKey}`,
      accept: 'application/json, application/pdf, application/xml;q=0.9, */*;q=0.1',
    };
    if (this.#options.userAgent) headers['user-agent'] = this.#options.userAgent;
    // One key for every attempt of this write: a retry is then the same request to the server.
    const key = !write
      ? null
      : request.idempotencyKey === false
        ? null
        : (request.idempotencyKey ?? crypto.randomUUID());
    if (key !== null) headers['idempotency-key'] = key;
    const repeatable = !write || key !== null;
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const url = this.#url(request.path, request.query);
    const { onRequest, onResponse } = this.#options;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.#options.maxRetries;
      const event: RequestEvent = { method: request.method, url, attempt, idempotencyKey: key };
      onRequest?.(event);
      const timeout = AbortSignal.timeout(this.#options.timeoutMs);
      const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
      const started = performance.now();
      let response: Response;
      try {
        response = await this.#options.fetch(url, {
          method: request.method,
          headers,
          body,
          signal,
        });
      } catch (error) {
        // The caller's cancellation ends it; anything else (refused, reset, timed out) is retried
        // where a repeat cannot do the work twice.
        const cancelled = request.signal?.aborted ?? false;
        const willRetry = !cancelled && repeatable && !last;
        onResponse?.({
          ...event,
          status: null,
          requestId: null,
          idempotentReplayed: false,
          elapsedMs: performance.now() - started,
          willRetry,
          error,
        });
        if (cancelled) throw request.signal!.reason;
        if (!willRetry) throw error;
        await sleep(this.backoff(attempt), request.signal);
        continue;
      }
      const answered = {
        ...event,
        status: response.status,
        requestId: response.headers.get('request-id'),
        idempotentReplayed: response.headers.get('idempotent-replayed') === 'true',
        elapsedMs: performance.now() - started,
      };
      if (response.ok) {
        onResponse?.({ ...answered, willRetry: false });
        const metadata: ResponseMetadata = {
          status: response.status,
          requestId: answered.requestId,
          idempotentReplayed: answered.idempotentReplayed,
          idempotencyKey: key,
          attempts: attempt + 1,
          headers: response.headers,
        };
        return { response, metadata };
      }
      const text = await response.text().catch(() => '');
      const error = new BillingApiError(response.status, parseEnvelope(text), response.headers);
      const retriable =
        response.status === 429 ||
        error.code === 'idempotency_key_in_use' ||
        (repeatable && SERVER_FAILURES.has(response.status));
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      // A server that asks for a longer pause than this client waits gets its error back.
      const tooLong = retryAfter !== undefined && retryAfter * 1000 > this.#options.maxDelayMs;
      const willRetry = retriable && !last && !tooLong;
      onResponse?.({ ...answered, willRetry });
      if (!willRetry) throw error;
      await sleep(this.backoff(attempt, retryAfter), request.signal);
    }
  }

  /** The JSON of a successful request, with the answer's metadata as `lastResponse`. */
  async json<T>(request: ApiRequest): Promise<WithResponse<T>> {
    const { response, metadata } = await this.send(request);
    return withResponse((await response.json()) as T, metadata);
  }
}
