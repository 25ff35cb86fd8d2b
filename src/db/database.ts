// Opens the database the configuration names: the server at DATABASE_URL, or the embedded
// PostgreSQL under ./data when DATABASE_URL is not set.
import type { Config } from '../config.ts';
import { startEmbeddedDatabase } from './embedded.ts';
import { createPool, type Db } from './pool.ts';

export interface OpenDatabase {
  db: Db;
  /**
   * For what needs a session of its own (LISTEN, migrations): a small pool on
   * DATABASE_DIRECT_URL when DATABASE_URL is a transaction pooler, else `db` itself.
   */
  direct: Db;
  embedded: boolean;
  /** Closes the pool, then stops the embedded server if this process started it. */
  close(): Promise<void>;
}

export async function openDatabase(
  config: Config,
  log: (message: string) => void,
  poolSize = config.databasePoolSize,
): Promise<OpenDatabase> {
  if (config.databaseUrl) {
    const directUrl = config.databaseDirectUrl;
    const pooler = directUrl !== undefined && directUrl !== config.databaseUrl;
    const db = createPool(config.databaseUrl, poolSize, {
      pooler,
      preparedStatements: config.databasePreparedStatements ?? !pooler,
    });
    if (!pooler) return { db, direct: db, embedded: false, close: () => db.end() };
    // One connection listens, one migrates (at start only).
    const direct = createPool(directUrl, 2);
    return {
      db,
      direct,
      embedded: false,
      close: async () => {
        await Promise.all([db.end(), direct.end()]);
      },
    };
  }
  const server = await startEmbeddedDatabase(config.dataDir, config.embeddedPgPort, log);
  const db = createPool(server.url, poolSize);
  return {
    db,
    direct: db,
    embedded: true,
    // The embedded PostgreSQL is stopped even if the pool fails to end: it must not outlive us.
    close: async () => {
      try {
        await db.end();
      } finally {
        if (server.owned) await server.stop();
      }
    },
  };
}
