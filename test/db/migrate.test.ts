import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadMigrations, migrate, migrationsApplied } from '../../src/db/migrate.ts';
import { createTestDatabase, testPool } from '../helpers.ts';

it('applies migrations concurrently from several instances and again without harm', async () => {
  const url = await createTestDatabase({ empty: true });
  const pools = [testPool(url, 2), testPool(url, 2), testPool(url, 2)];
  try {
    const results = await Promise.all(pools.map((p) => migrate(p)));
    const all = await loadMigrations();
    // Exactly one instance applied each migration.
    assert.equal(results.flat().length, all.length);
    assert.deepEqual(await migrate(pools[0]!), []);
    assert.equal(await migrationsApplied(pools[0]!), true);
    const { rows } = await pools[0]!.query('SELECT count(*)::int AS n FROM schema_migrations');
    assert.equal(rows[0].n, all.length);
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
});
