// Behind a transaction pooler (PgBouncer): the pool sends no startup parameters and, unless
// told otherwise, no named statements; what needs a session goes to DATABASE_DIRECT_URL.
// (npm run test:pgbouncer runs the whole suite through a real PgBouncer.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, directUrl, startTestServer } from '../helpers.ts';

const url = directUrl(await createTestDatabase());

describe('behind a transaction pooler', () => {
  it('sends statements unnamed when the pooler cannot keep them, named otherwise', async () => {
    const prepared = async (preparedStatements: boolean) => {
      const db = createPool(url, 1, { preparedStatements });
      try {
        const query = { name: 'pooler_probe', text: 'SELECT $1::int AS n', values: [1] };
        await db.query(query);
        await db.query(query);
        const { rows } = await db.query('SELECT name FROM pg_prepared_statements');
        return rows.map((r) => r.name);
      } finally {
        await db.end();
      }
    };
    assert.deepEqual(await prepared(true), ['pooler_probe']);
    assert.deepEqual(await prepared(false), []);
  });

  it('sends no startup parameter a pooler would refuse', async () => {
    const settings = async (pooler: boolean) => {
      const db = createPool(url, 1, { pooler });
      try {
        const { rows } = await db.query(
          `SELECT current_setting('statement_timeout') AS timeout,
                  current_setting('application_name') AS name`,
        );
        return rows[0];
      } finally {
        await db.end();
      }
    };
    assert.deepEqual(await settings(false), { timeout: '15s', name: 'billing-api' });
    // The server's own default (0: none) where a pooler stands between.
    const pooled = await settings(true);
    assert.equal(pooled.name, 'billing-api');
    assert.notEqual(pooled.timeout, '15s');
  });

  it('listens for revocations and migrates over DATABASE_DIRECT_URL', async () => {
    // The same database under another name, so that the app takes DATABASE_URL for a pooler.
    const direct = new URL(url);
    direct.searchParams.set('application_name', 'billing-direct');
    const server = await startTestServer(url, { databaseDirectUrl: direct.toString() });
    assert.notEqual(server.database.direct, server.database.db);
    const { rows } = await server.db.query(
      `SELECT application_name AS name FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN api_key_changed'`,
    );
    assert.deepEqual(rows, [{ name: 'billing-direct' }]);
    const { rows: migrations } = await server.db.query(
      'SELECT count(*)::int AS n FROM schema_migrations',
    );
    assert.ok(migrations[0].n > 0);
  });

  it('reads DATABASE_DIRECT_URL and DATABASE_PREPARED_STATEMENTS', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://app@pgbouncer:6432/billing',
      DATABASE_DIRECT_URL: 'postgres://app@db:5432/billing',
      DATABASE_PREPARED_STATEMENTS: 'true',
    });
    assert.equal(config.databaseDirectUrl, 'postgres://app@db:5432/billing');
    assert.equal(config.databasePreparedStatements, true);
    assert.equal(loadConfig({}).databasePreparedStatements, undefined);
    assert.throws(
      () => loadConfig({ DATABASE_DIRECT_URL: 'postgres://app@db/billing' }),
      (error: ConfigError) => error.problems.some((p) => p.startsWith('DATABASE_DIRECT_URL')),
    );
    assert.throws(
      () =>
        loadConfig({
          DATABASE_URL: 'postgres://db/billing',
          DATABASE_PREPARED_STATEMENTS: 'maybe',
        }),
      (error: ConfigError) =>
        error.problems.some((p) => p.startsWith('DATABASE_PREPARED_STATEMENTS')),
    );
  });
});
