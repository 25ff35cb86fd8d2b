// The CLI works on the same database as the server, the embedded one too: it connects to the
// running embedded server, or starts it for the length of the command.
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import type { Db } from '../db/pool.ts';

export async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase(config, (m) => console.error(m), 2);
  try {
    await migrate(database.direct);
    return await work(database.db);
  } finally {
    await database.close();
  }
}
