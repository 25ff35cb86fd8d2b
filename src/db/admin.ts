// Databases made and dropped by name on a PostgreSQL server, reached through the URL of any
// database on it: the tests' database per file, the reliability scenarios' scratch databases
// and the benchmarks' databases.
import pg from 'pg';
import { TENANT_PARTITIONS_SETTING } from './partitioning.ts';

/** `url` with its database replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs one statement on its own connection to `url`. */
async function onServer(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates the empty database `name` on the server of `serverUrl`; its URL. With
 * `tenantPartitions`, a database whose tenant tables the migrator hash-partitions by tenant
 * (src/db/partitioning.ts). With `template`, a copy of that database instead of an empty one
 * (it must have no sessions; its database settings are not copied).
 */
export async function createDatabase(
  serverUrl: string,
  name: string,
  options: { tenantPartitions?: number; template?: string } = {},
): Promise<string> {
  const from = options.template ? ` TEMPLATE ${pg.escapeIdentifier(options.template)}` : '';
  await onServer(serverUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}${from}`);
  if (options.tenantPartitions) {
    await onServer(
      serverUrl,
      `ALTER DATABASE ${pg.escapeIdentifier(name)} SET ${TENANT_PARTITIONS_SETTING} = ${pg.escapeLiteral(String(options.tenantPartitions))}`,
    );
  }
  return withDatabase(serverUrl, name);
}

/** Drops the database `name` if it exists, ending the sessions still on it. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
}
