// The CLI works on the same database as the server, the embedded one too: it connects to the
// running embedded server, or starts it for the length of the command.
import { systemClock } from '../clock.ts';
import { createHostedLinks, createServices, type Services } from '../composition.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import type { Db } from '../db/pool.ts';
import { createRenderPool } from '../documents/render-pool.ts';
import { checkSecretsKey } from '../secrets/check.ts';
import { SecretsKeyring } from '../secrets/keyring.ts';

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

/**
 * The services as the server and the worker have them (src/composition.ts), for commands that
 * do what they do: one render thread, links to PUBLIC_URL or HOST and PORT.
 */
export async function withServices<T>(work: (services: Services) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const secrets = await SecretsKeyring.load(config);
  return withDatabase(async (db) => {
    await checkSecretsKey(db, secrets);
    const renderer = createRenderPool({ threads: 1 });
    try {
      const links = createHostedLinks(config, secrets, systemClock);
      const clock = systemClock;
      return await work(createServices({ config, clock, db, secrets, renderer, links }));
    } finally {
      await renderer.close();
    }
  });
}
