// Environment variables → one typed, validated object. Every wrong variable is named in one
// message at start-up, so an operator fixes them all in one go.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';

// Connections per instance: four per core. More only queue work on the same cores (measured on
// 2 cores: 20 connections served the list at half the rate of 8, and writes no faster).
const DEFAULT_POOL_SIZE = Math.max(4, 4 * availableParallelism());

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /**
   * PostgreSQL itself, for what needs a session of its own (LISTEN for key revocations,
   * migrations), when DATABASE_URL is a transaction pooler such as PgBouncer. Unset: the
   * DATABASE_URL is direct and serves both.
   */
  databaseDirectUrl: string | undefined;
  /** Named prepared statements; unset: on, unless DATABASE_URL is a pooler (DATABASE_DIRECT_URL). */
  databasePreparedStatements: boolean | undefined;
  /** Connections each instance keeps to PostgreSQL. */
  databasePoolSize: number;
  /** Port of the embedded PostgreSQL (only used without DATABASE_URL). */
  embeddedPgPort: number;
  /** Folder for the embedded database, the mail outbox and other local state. */
  dataDir: string;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  logLevel: string;
  rateLimitLive: number;
  rateLimitTest: number;
  /** Prefix of the rate-limit counters in Redis (instances that share limits share it). */
  redisKeyPrefix: string;
  /** Failed authentications from one address within the window before it gets 429. */
  authFailureLimit: number;
  authFailureWindowSeconds: number;
  webhooksAllowLoopback: boolean;
  /** DNS servers for webhook hosts (`ip` or `ip:port`); empty: the system's. */
  dnsServers: string[];
  trustProxy: boolean;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** The secrets key (src/secrets/keyring.ts); DATA_DIR/secrets.key when not set. */
  secretsKey: string | undefined;
  /** Keys being rotated out, comma-separated. */
  secretsKeyPrevious: string | undefined;
  /** How long a verified key may be served from memory (revocation must bite within 2 s). */
  keyCacheMs: number;
  /** Start the webhook delivery worker and periodic jobs in the server process. */
  runWorker: boolean;
  /** A request's headers and body must arrive within this (src/http/connections.ts). */
  requestTimeoutMs: number;
  /** A request's headers must arrive within this. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Connections open at once; further ones are closed as they arrive. */
  maxConnections: number;
  /**
   * Where customers reach this server: the base of hosted invoice links
   * (`{PUBLIC_URL}/i/{token}`). Unset: the address the server listens on (src/http/public-url.ts).
   */
  publicUrl: string | undefined;
  /** Requests to the hosted invoice page per client address and minute. */
  hostedPageRateLimit: number;
  /** Expensive requests (documents, reports, large pages) per tenant at once (src/http/expensive-requests.ts). */
  expensivePerTenant: number;
  /** Expensive requests at once in the instance, all tenants together. */
  expensiveTotal: number;
  /** A tenant's expensive requests waiting for their turn; one more is 429. */
  expensiveQueuePerTenant: number;
  /** `/metrics` then needs `Authorization: Bearer <token>` (src/http/metrics.ts). */
  metricsToken: string | undefined;
  /** `/metrics` is then served on this address only, by a listener of its own. */
  metricsListen: ListenAddress | undefined;
}

export interface ListenAddress {
  host: string;
  port: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `host:port` or `[ipv6]:port`, the port from 0 (any free one) to 65535; undefined if not. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(text);
  if (!match) return undefined;
  const host = match[1] ?? match[2]!;
  const port = Number(match[3]);
  if (port > 65535 || (match[1] !== undefined && isIP(host) !== 6)) return undefined;
  // A name must be a host name (labels of letters, digits and inner hyphens), not a bare number.
  if (match[2] !== undefined && isIP(host) === 0) {
    const labels = host.split('.');
    const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
    if (!labels.every((l) => label.test(l)) || /^[\d.]+$/.test(host)) return undefined;
  }
  return { host, port };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${JSON.stringify(raw)} must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    problems.push(`${name}=${JSON.stringify(raw)} must be true or false`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) {
        problems.push(`${name} must use one of ${protocols.join(', ')}`);
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };
  const str = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw === '' ? undefined : raw;
  };

  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`LOG_LEVEL=${JSON.stringify(logLevel)} must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const tlsCertFile = str('TLS_CERT_FILE');
  const tlsKeyFile = str('TLS_KEY_FILE');
  if ((tlsCertFile === undefined) !== (tlsKeyFile === undefined)) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const databaseDirectUrl = url('DATABASE_DIRECT_URL', ['postgres:', 'postgresql:']);
  if (databaseDirectUrl !== undefined && databaseUrl === undefined) {
    problems.push('DATABASE_DIRECT_URL needs DATABASE_URL (the embedded database has no pooler)');
  }
  const key32 = (name: string, raw: string | undefined) => {
    const ok = (text: string) =>
      /^[0-9a-f]{64}$/i.test(text) || Buffer.from(text, 'base64').length === 32;
    if (raw !== undefined && !raw.split(',').every((k) => ok(k.trim()))) {
      problems.push(`${name} must be 32 random bytes in base64 or hex (openssl rand -base64 32)`);
    }
    return raw;
  };
  const dnsServers = (str('DNS_SERVERS') ?? '').split(',').filter((d) => d.trim() !== '');
  for (const server of dnsServers) {
    const host = server
      .trim()
      .replace(/^\[(.*)\](:\d+)?$/, '$1')
      .replace(/^([\d.]+):\d+$/, '$1');
    if (!isIP(host)) problems.push(`DNS_SERVERS: '${server}' is not an IP address (ip or ip:port)`);
  }
  const secretsKey = key32('SECRETS_KEY', str('SECRETS_KEY'));
  // A base URL only: links are appended to it, so a query or fragment would swallow them.
  const publicUrl = url('PUBLIC_URL', ['http:', 'https:']);
  if (publicUrl !== undefined && /[?#]/.test(publicUrl)) {
    problems.push(
      'PUBLIC_URL must not have a query or fragment (e.g. https://billing.example.com)',
    );
  }
  const secretsKeyPrevious = key32('SECRETS_KEY_PREVIOUS', str('SECRETS_KEY_PREVIOUS'));
  // A bearer token (RFC 6750's token characters), long enough not to be guessed.
  const metricsToken = str('METRICS_TOKEN');
  if (metricsToken !== undefined && !/^[A-Za-z0-9\-._~+/]{16,}=*$/.test(metricsToken)) {
    problems.push(
      'METRICS_TOKEN must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (openssl rand -hex 32)',
    );
  }
  const metricsListenText = str('METRICS_LISTEN');
  const metricsListen =
    metricsListenText === undefined ? undefined : parseListenAddress(metricsListenText);
  if (metricsListenText !== undefined && metricsListen === undefined) {
    problems.push(
      `METRICS_LISTEN=${JSON.stringify(metricsListenText)} must be host:port (e.g. 127.0.0.1:9464, [::1]:9464 or 10.0.0.5:9464)`,
    );
  }

  const databasePoolSize = int('DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 2, 1000);
  const expensivePerTenant = int('EXPENSIVE_PER_TENANT', 2, 1, 1000);
  const config: Config = {
    port: int('PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    databaseDirectUrl,
    databasePreparedStatements: str('DATABASE_PREPARED_STATEMENTS')
      ? bool('DATABASE_PREPARED_STATEMENTS', true)
      : undefined,
    databasePoolSize,
    embeddedPgPort: int('EMBEDDED_PG_PORT', 54329, 1, 65535),
    dataDir: env.DATA_DIR || './data',
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'billing@localhost',
    logLevel,
    rateLimitLive: int('RATE_LIMIT_LIVE', 100, 1, 1_000_000),
    rateLimitTest: int('RATE_LIMIT_TEST', 25, 1, 1_000_000),
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'billing',
    authFailureLimit: int('AUTH_FAILURE_LIMIT', 20, 1, 1_000_000),
    authFailureWindowSeconds: int('AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400),
    webhooksAllowLoopback: bool('WEBHOOKS_ALLOW_LOOPBACK', false),
    dnsServers: dnsServers.map((d) => d.trim()),
    trustProxy: bool('TRUST_PROXY', false),
    tlsCertFile,
    tlsKeyFile,
    secretsKey,
    secretsKeyPrevious,
    keyCacheMs: int('KEY_CACHE_MS', 1000, 0, 1000),
    runWorker: bool('RUN_WORKER', true),
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 25_000, 100, 300_000),
    headersTimeoutMs: int('HEADERS_TIMEOUT_MS', 10_000, 100, 300_000),
    keepAliveTimeoutMs: int('KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 600_000),
    maxConnections: int('MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    hostedPageRateLimit: int('HOSTED_PAGE_RATE_LIMIT', 60, 1, 1_000_000),
    expensivePerTenant,
    // Half the pool by default: the other half stays for every tenant's cheap requests.
    expensiveTotal: int(
      'EXPENSIVE_TOTAL',
      Math.max(expensivePerTenant, Math.floor(databasePoolSize / 2)),
      1,
      1000,
    ),
    expensiveQueuePerTenant: int('EXPENSIVE_QUEUE_PER_TENANT', 16, 1, 100_000),
    metricsToken,
    metricsListen,
  };
  // Node refuses a headers timeout longer than the request timeout (the headers are part of
  // the request).
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push('HEADERS_TIMEOUT_MS must not be more than REQUEST_TIMEOUT_MS');
  }
  if (
    config.metricsListen !== undefined &&
    config.metricsListen.port !== 0 &&
    config.metricsListen.port === config.port &&
    config.metricsListen.host === config.host
  ) {
    problems.push("METRICS_LISTEN must not be the API's own address (HOST:PORT)");
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
