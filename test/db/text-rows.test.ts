// Timestamps read as PostgreSQL's text render exactly as Date.toISOString would.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { isoFromTimestamptz, jsonString } from '../../src/db/text-rows.ts';
import { createTestDatabase, directUrl } from '../helpers.ts';

const url = await createTestDatabase();

describe('timestamps as text', () => {
  it('renders a UTC session text like toISOString, for every fraction length', async () => {
    const client = new pg.Client({ connectionString: directUrl(url), options: '-c TimeZone=UTC' });
    await client.connect();
    try {
      const { rows } = await client.query<{ text: string; ms: string }>(
        `SELECT t::text AS text, (extract(epoch FROM t) * 1000)::bigint::text AS ms
           FROM (VALUES (timestamptz '2025-01-01 00:00:00Z'), ('2025-01-01 00:00:00.5Z'),
                        ('2025-01-01 00:00:00.07Z'), ('2025-01-01 00:00:00.007Z'),
                        ('2025-12-31 23:59:59.999Z'), ('1999-02-03 04:05:06.123Z')) AS v(t)`,
      );
      for (const row of rows) {
        assert.equal(isoFromTimestamptz(row.text), new Date(Number(row.ms)).toISOString());
      }
    } finally {
      await client.end();
    }
  });

  it('falls back to a full parse for another zone or style', () => {
    assert.equal(isoFromTimestamptz('2025-01-01 02:00:00.25+02'), '2025-01-01T00:00:00.250Z');
    assert.equal(isoFromTimestamptz('2025-06-30 20:30:00-03:30'), '2025-07-01T00:00:00.000Z');
  });

  it('writes nullable text as JSON', () => {
    assert.equal(jsonString(null), 'null');
    assert.equal(jsonString('a "quoted"\n\u2028 name'), JSON.stringify('a "quoted"\n\u2028 name'));
  });
});
