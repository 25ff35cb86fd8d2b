// One request to the API, retried where a retry is safe and may succeed: after a network error
// (also when the server may have done the work: a write carries an Idempotency-Key, generated
// once and sent with every attempt, so the server does it once and replays its answer), on
// `409 idempotency_key_in_use` (the first attempt is still running), `429` and `503`. Waits
// grow exponentially with jitter, and never undercut the server's Retry-After.
import { BillingApiError, parseEnvelope, retryAfterSeconds } from './errors.ts';

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
}

export interface RequestOptions {
  /** Use this Idempotency-Key instead of a generated one (e.g. one stored with your own record). */
  idempotencyKey?: string;
  /** Cancels the request and its retries. */
  signal?: AbortSignal;
}

export interface ApiRequest extends RequestOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

const RETRIED_STATUSES = new Set([429, 503]);

const sleep = (ms: number, signal?: AbortSignal) =>
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

export class Transport {
  readonly #options: Required<Omit<TransportOptions, 'userAgent'>> & { userAgent?: string };

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
  async send(request: ApiRequest): Promise<Response> {
    const write = request.method !== 'GET';
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.apiKey}`,
      accept: 'application/json, application/pdf, application/xml;q=0.9, */*;q=0.1',
    };
    if (this.#options.userAgent) headers['user-agent'] = this.#options.userAgent;
    // One key for every attempt of this write: a retry is then the same request to the server.
    if (write) headers['idempotency-key'] = request.idempotencyKey ?? crypto.randomUUID();
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const url = this.#url(request.path, request.query);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= this.#options.maxRetries;
      const timeout = AbortSignal.timeout(this.#options.timeoutMs);
      const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await this.#options.fetch(url, {
          method: request.method,
          headers,
          body,
          signal,
        });
      } catch (error) {
        // The caller's cancellation ends it; anything else (refused, reset, timed out) is retried.
        if (request.signal?.aborted) throw request.signal.reason;
        if (last) throw error;
        await sleep(this.backoff(attempt), request.signal);
        continue;
      }
      if (response.ok) return response;
      const text = await response.text().catch(() => '');
      const error = new BillingApiError(response.status, parseEnvelope(text), response.headers);
      const retriable =
        RETRIED_STATUSES.has(response.status) || error.code === 'idempotency_key_in_use';
      const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
      if (!retriable || last) throw error;
      // A server that asks for a longer pause than this client waits gets its error back.
      if (retryAfter !== undefined && retryAfter * 1000 > this.#options.maxDelayMs) throw error;
      await sleep(this.backoff(attempt, retryAfter), request.signal);
    }
  }

  /** The JSON of a successful request. */
  async json<T>(request: ApiRequest): Promise<T> {
    const response = await this.send(request);
    return (await response.json()) as T;
  }
}
