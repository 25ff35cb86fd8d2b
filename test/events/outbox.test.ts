// Events wait for their transaction's last statement: written exactly when it commits, never
// left on a pooled connection for another transaction to write.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { inTransaction } from '../../src/db/pool.ts';
import { migrate } from '../../src/db/migrate.ts';
import { recordEvent } from '../../src/events/service.ts';
import { createTenant } from '../../src/keys/service.ts';
import { createTestDatabase, testPool } from '../helpers.ts';

const url = await createTestDatabase();
// One connection: every transaction below runs on the same pooled client.
const db = testPool(url, 1);
after(() => db.end());
await migrate(db);
const tenant = await createTenant(db, 'Outbox');
const scope = { tenantId: tenant.id, environment: 'test' as const };

const eventsOf = async (objectId: string) =>
  (
    await db.query(
      `SELECT type, data FROM events WHERE tenant_id = $1 AND object_id = $2 ORDER BY created_at, id`,
      [tenant.id, objectId],
    )
  ).rows as { type: string; data: { object: { id: string; n?: number } } }[];

describe('event outbox', () => {
  it('writes the events of a committed transaction, in order, as they were when recorded', async () => {
    const object = { id: 'cus_outbox1', n: 1 };
    await inTransaction(db, async (tx) => {
      await recordEvent(tx, scope, 'customer.created', object);
      object.n = 2;
      await recordEvent(tx, scope, 'customer.updated', object);
      object.n = 3;
    });
    const events = await eventsOf('cus_outbox1');
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object.n]),
      [
        ['customer.created', 1],
        ['customer.updated', 2],
      ],
    );
  });

  it('writes none for a transaction that failed, and none of them later on the same connection', async () => {
    await assert.rejects(
      inTransaction(db, async (tx) => {
        await recordEvent(tx, scope, 'customer.created', { id: 'cus_outbox2' });
        throw new Error('refused');
      }),
      /refused/,
    );
    // The next transaction on the same client commits, with no events of its own.
    await inTransaction(db, async (tx) => {
      await tx.query('SELECT 1');
    });
    assert.deepEqual(await eventsOf('cus_outbox2'), []);
  });

  it('queues one delivery per enabled endpoint that takes the type, in the same statement', async () => {
    await db.query(
      `INSERT INTO webhook_endpoints (tenant_id, environment, id, url, enabled_events, secret, disabled)
       VALUES ($1, 'test', 'we_all', 'https://example.com/a', ARRAY['*'], 'whsec_x', false),
              ($1, 'test', 'we_inv', 'https://example.com/b', ARRAY['invoice.created'], 'whsec_x', false),
              ($1, 'test', 'we_off', 'https://example.com/c', ARRAY['*'], 'whsec_x', true)`,
      [tenant.id],
    );
    await inTransaction(db, async (tx) => {
      await recordEvent(tx, scope, 'customer.created', { id: 'cus_outbox3' });
      await recordEvent(tx, scope, 'invoice.created', { id: 'inv_outbox3' });
    });
    const { rows } = await db.query(
      `SELECT d.endpoint_id, d.event_type FROM webhook_deliveries d
         JOIN events e ON e.tenant_id = d.tenant_id AND e.id = d.event_id
        WHERE d.tenant_id = $1 AND e.object_id IN ('cus_outbox3', 'inv_outbox3')
        ORDER BY d.event_type, d.endpoint_id`,
      [tenant.id],
    );
    assert.deepEqual(
      rows.map((r) => [r.event_type, r.endpoint_id]),
      [
        ['customer.created', 'we_all'],
        ['invoice.created', 'we_all'],
        ['invoice.created', 'we_inv'],
      ],
    );
  });
});
