import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import type { Queryable } from '../../src/db/pool.ts';
import { writtenValue } from '../../src/db/unit-of-work.ts';
import { operator, type TenantScope } from '../../src/tenancy.ts';
import { recordUsageEvents, type ClosedBefore } from '../../src/usage/service.ts';
import { createCustomer, startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { statuses } from './fixtures.ts';

// usage_period_closed: the rule that closes a customer's usage up to an instant is given by
// whoever bills it (subscriptions, once a period's invoice is issued); ingestion asks it for
// the batch's customer ids (in the round trip that reads the customers, so unknown ids too),
// in the batch's transaction, and refuses what falls before.

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const ada = await createCustomer(api);
const grace = await createCustomer(api);
const HOUR = 3_600_000;
const closedAt = new Date(Date.now() - 2 * HOUR);

const asked: { customerIds: readonly string[]; scope: TenantScope; inTransaction: boolean }[] = [];
const closedBefore: ClosedBefore = async (tx: Queryable, scope, customerIds) => {
  // The batch's transaction holds its shared lock on the tenant's meters.
  const { rows } = await tx.query<{ open: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND granted
                       AND locktype = 'advisory' AND mode = 'ShareLock') AS open`,
  );
  asked.push({ customerIds, scope, inTransaction: rows[0]!.open });
  return new Map([[ada.id, closedAt]]);
};

const send = async (events: object[]) =>
  writtenValue(
    await recordUsageEvents(
      { db: server.db, clock: systemClock, closedBefore },
      { actor: operator(key.tenantId, 'test') },
      events,
    ),
  ).data;

const event = (id: string, customerId: string, ms: number) => ({
  id,
  eventName: 'api_call',
  customerId,
  timestamp: new Date(closedAt.getTime() + ms).toISOString(),
});

describe('usage in a closed period', () => {
  it('refuses an event before the customer’s closing as usage_period_closed, and only that', async () => {
    const outcomes = await send([
      event('closed-1', ada.id, -1),
      event('closed-2', ada.id, 0),
      event('closed-3', grace.id, -HOUR),
      event('closed-4', 'cus_nobody', -HOUR),
    ]);
    assert.deepEqual(statuses(outcomes), [
      'usage_period_closed',
      'accepted',
      'accepted',
      'resource_missing',
    ]);
    assert.match(outcomes[0]!.error!.message, new RegExp(closedAt.toISOString()));
    const last = asked.at(-1)!;
    assert.deepEqual([...last.customerIds].sort(), [ada.id, grace.id, 'cus_nobody'].sort());
    assert.deepEqual(last.scope, { ...operator(key.tenantId, 'test') });
    assert.ok(last.inTransaction);
  });

  it('answers a retry of an event accepted before its period closed as a duplicate', async () => {
    const late = event('closed-5', grace.id, -HOUR);
    assert.deepEqual(statuses(await send([late])), ['accepted']);
    const retried = { ...late, customerId: ada.id };
    assert.deepEqual(statuses(await send([{ ...late }, retried])), [
      'duplicate',
      'idempotency_key_reused',
    ]);
  });
});
