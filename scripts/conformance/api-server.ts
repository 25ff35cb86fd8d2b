// The real server for the conformance run's API documents: `startServer` on a fresh database
// (made on the server at DATABASE_URL, or on an embedded PostgreSQL under
// ./data/conformance-pg on a free port), with sellers made as the operator makes them (a
// tenant and a test key holding every scope), and a small HTTP client bound to a key.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createDatabase, dropDatabase } from '../../src/db/admin.ts';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { writtenValue } from '../../src/db/unit-of-work.ts';
import { SCOPES } from '../../src/keys/scopes.ts';
import { createApiKey, operator } from '../../src/keys/service.ts';
import { createTenant } from '../../src/tenants/service.ts';
import { startServer, type RunningServer } from '../../src/server.ts';

export interface Reply {
  status: number;
  type: string | null;
  bytes: Buffer;
  /** The body as JSON, when it is JSON; else null. */
  body: unknown;
}

export interface Api {
  get(path: string): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  patch(path: string, body: unknown): Promise<Reply>;
}

export interface ConformanceServer {
  url: string;
  /** A new tenant (one seller) and a client with a test key holding every scope. */
  seller(name: string): Promise<Api>;
  close(): Promise<void>;
}

/** A TCP port nobody listens on now (the kernel's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function client(url: string, key: string): Api {
  const send = async (method: string, route: string, body?: unknown): Promise<Reply> => {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get('content-type');
    const json = type?.startsWith('application/json') ? JSON.parse(bytes.toString('utf8')) : null;
    return { status: response.status, type, bytes, body: json };
  };
  return {
    get: (route) => send('GET', route),
    post: (route, body) => send('POST', route, body ?? {}),
    patch: (route, body) => send('PATCH', route, body),
  };
}

export async function startConformanceServer(
  root: string,
  log: (message: string) => void,
): Promise<ConformanceServer> {
  let embedded: EmbeddedDatabase | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    embedded = await startEmbeddedDatabase(
      path.join(root, 'data', 'conformance-pg'),
      await freePort(),
      log,
    );
    adminUrl = embedded.url;
  }
  const name = `billing_conformance_${randomBytes(6).toString('hex')}`;
  let server: RunningServer | undefined;
  try {
    const databaseUrl = await createDatabase(adminUrl, name);
    server = await startServer(
      {
        ...loadConfig({}),
        databaseUrl,
        databaseDirectUrl: undefined,
        port: 0,
        logLevel: 'silent',
        // One key makes every request of the run in quick succession.
        rateLimitLive: 1_000_000,
        rateLimitTest: 1_000_000,
        secretsKey: randomBytes(32).toString('base64'),
      },
      log,
    );
  } catch (error) {
    await dropDatabase(adminUrl, name).catch(() => undefined);
    await embedded?.stop();
    throw error;
  }
  const running = server;
  return {
    url: running.url,
    async seller(tenantName) {
      const tenant = await createTenant(running.database.db, tenantName);
      const key = writtenValue(
        await createApiKey(
          running.database.db,
          { actor: operator(tenant.id, 'test') },
          { scopes: [...SCOPES] },
        ),
      );
      return client(running.url, key.secret);
    },
    async close() {
      try {
        await running.close();
        await dropDatabase(adminUrl, name);
      } finally {
        await embedded?.stop();
      }
    },
  };
}
