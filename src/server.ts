// Starts a complete server process (database, migrations, HTTP, background jobs) and returns
// a handle that shuts it down gracefully. Used by main.ts, the CLI's `serve` and the tests.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openDatabase, type OpenDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { WebhookWorker } from './events/worker.ts';
import { purgeExpiredIdempotencyKeys } from './http/idempotency.ts';
import { CursorSigner } from './http/paging.ts';
import { bootstrapFirstTenant } from './keys/bootstrap.ts';
import type { IssuedApiKey } from './keys/service.ts';
import { KeyVerifier } from './keys/verifier.ts';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  database: OpenDatabase;
  verifier: KeyVerifier;
  /** The key made on the first start of an embedded database, if this start made it. */
  firstKey: IssuedApiKey | null;
  close(): Promise<void>;
}

export async function startServer(
  config: Config,
  log: (message: string) => void,
  logStream?: { write(line: string): void },
): Promise<RunningServer> {
  const database = await openDatabase(config, log);
  const timers: NodeJS.Timeout[] = [];
  // What has started so far, stopped again in reverse if a later step fails (a port in use,
  // say): the verifier's LISTEN connection would otherwise hold the pool, and the process, open.
  const undo: (() => Promise<unknown>)[] = [() => database.close()];
  try {
    const applied = await migrate(database.direct);
    if (applied.length > 0) log(`applied migrations: ${applied.join(', ')}`);
    const firstKey = database.embedded ? await bootstrapFirstTenant(database.db) : null;
    const cursors = await CursorSigner.load(database.db, config.cursorSecret);
    const verifier = new KeyVerifier(database.db, config.keyCacheMs, database.direct);
    undo.push(() => verifier.close());
    await verifier.start();
    const app = await buildApp({ config, db: database.db, cursors, verifier, logStream });
    undo.push(() => app.close());
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const scheme = config.tlsCertFile ? 'https' : 'http';
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;

    let worker: WebhookWorker | undefined;
    if (config.runWorker) {
      worker = new WebhookWorker(database.db, {
        allowLoopback: config.webhooksAllowLoopback,
        onError: (error, context) => app.log.error({ err: error }, context),
      });
      worker.start();
      const purge = setInterval(() => {
        purgeExpiredIdempotencyKeys(database.db).catch(() => undefined);
      }, 60_000);
      purge.unref();
      timers.push(purge);
    }

    return {
      app,
      url: `${scheme}://${host}:${port}`,
      database,
      verifier,
      firstKey,
      async close() {
        for (const timer of timers) clearInterval(timer);
        // Every step runs even if one before it fails (the database, last, must be released,
        // and an embedded one stopped); the first failure is thrown at the end.
        let failure: unknown;
        const step = async (work: () => Promise<unknown> | undefined) => {
          try {
            await work();
          } catch (error) {
            failure ??= error;
          }
        };
        // Stop accepting, let requests in flight finish, then release the database.
        await step(() => app.close());
        // Attempts in flight finish and are recorded before the database goes.
        await step(() => worker?.stop());
        await step(() => verifier.close());
        await step(() => database.close());
        if (failure !== undefined) throw failure;
      },
    };
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw error;
  }
}
