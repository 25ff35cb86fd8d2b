import assert from 'node:assert/strict';
import { totalmem } from 'node:os';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { embeddedSettings } from '../../src/db/embedded.ts';
import { startOwnedPostgres, type OwnedPostgres } from '../reliability/databases.ts';

const MB = 2 ** 20;
const sharedBuffers = (memory: number) =>
  embeddedSettings(memory).find((s) => s.startsWith('shared_buffers='));

describe('the embedded PostgreSQL', () => {
  let postgres: OwnedPostgres;
  before(async () => {
    postgres = await startOwnedPostgres();
  });
  after(() => postgres.destroy());

  it('gives shared buffers a quarter of memory, between 128 MB and 1 GB', () => {
    assert.equal(sharedBuffers(256 * MB), 'shared_buffers=128MB');
    assert.equal(sharedBuffers(2048 * MB), 'shared_buffers=512MB');
    assert.equal(sharedBuffers(4096 * MB), 'shared_buffers=1024MB');
    assert.equal(sharedBuffers(64 * 1024 * MB), 'shared_buffers=1024MB');
  });

  it('runs with its settings', async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string; setting: string; unit: string | null }>(
        `SELECT name, setting, unit FROM pg_settings
          WHERE name IN ('shared_buffers', 'wal_buffers', 'max_wal_size', 'checkpoint_timeout',
                         'max_connections')`,
      );
      const shown = Object.fromEntries(rows.map((r) => [r.name, `${r.setting} ${r.unit ?? ''}`]));
      const expectedBuffers = Number(/=(\d+)MB/.exec(sharedBuffers(totalmem())!)![1]) * 128;
      assert.deepEqual(shown, {
        shared_buffers: `${expectedBuffers} 8kB`,
        wal_buffers: '8192 8kB',
        max_wal_size: '8192 MB',
        checkpoint_timeout: '900 s',
        max_connections: '200 ',
      });
    } finally {
      await client.end();
    }
  });
});
