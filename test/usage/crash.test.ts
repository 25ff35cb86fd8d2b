// Exactly once across a crash: clients send batches of usage events and retry each batch with
// the same ids until it is answered, while the server is killed with SIGKILL in the middle and
// another takes its place. At the end every event is kept once, none lost or doubled, no
// answer ever refused one, and the meters' rollups add up to the events kept.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createTenantWithKey, sleep, waitFor } from '../helpers.ts';
import { createScratchDatabase } from '../reliability/databases.ts';
import {
  killChild,
  request,
  startChildServer,
  type ChildServer,
} from '../reliability/processes.ts';

const BATCHES = 40;
const PER_BATCH = 250;
const CLIENTS = 4;

describe('usage events across a crash', () => {
  it('keeps every event once when the server dies mid-ingestion and clients retry the same ids', async () => {
    const database = await createScratchDatabase(process.env.TEST_DATABASE_URL!);
    const servers: ChildServer[] = [];
    after(async () => {
      await Promise.all(servers.map((s) => killChild(s)));
      await database.drop();
    });
    servers.push(await startChildServer(database.url));
    let url = servers[0]!.url;
    const key = await createTenantWithKey(database.db);
    const call = (method: string, path: string, body?: unknown) =>
      request(url, method, path, { key: key.secret, body });
    const customer = (await call('POST', '/v1/customers', { name: 'Ada' })).body.id as string;
    const meters: Record<string, string> = {};
    for (const [aggregation, valueProperty] of [
      ['sum', 'units'],
      ['count', undefined],
    ] as const) {
      const meter = await call('POST', '/v1/meters', {
        eventName: 'api_call',
        aggregation,
        valueProperty,
        displayName: aggregation,
      });
      assert.equal(meter.status, 201, meter.text);
      meters[aggregation] = meter.body.id;
    }

    const now = Date.now();
    const batches = Array.from({ length: BATCHES }, (_, b) =>
      Array.from({ length: PER_BATCH }, (_, i) => ({
        id: `crash-${b}-${i}`,
        eventName: 'api_call',
        customerId: customer,
        timestamp: new Date(now - ((b * PER_BATCH + i) % 3600) * 1000).toISOString(),
        properties: { units: `${i % 10}.${b % 10}5` },
      })),
    );
    const expectedSum = batches
      .flat()
      .reduce((total, e) => total + BigInt(e.properties.units.replace('.', '')), 0n);

    const seen = new Map<string, string[]>();
    let failures = 0;
    let next = 0;
    const sendAll = async () => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        for (;;) {
          const reply = await request(url, 'POST', '/v1/usage-events', {
            key: key.secret,
            body: { events: batch },
            timeoutMs: 10_000,
          }).catch(() => null);
          if (reply?.status === 200) {
            reply.body.data.forEach((o: { id: string; status: string }) =>
              seen.set(o.id, [...(seen.get(o.id) ?? []), o.status]),
            );
            break;
          }
          failures += 1;
          await sleep(50); // a client's back-off while no server answers
        }
      }
    };
    const kept = async () =>
      (
        await database.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM usage_events WHERE tenant_id = $1',
          [key.tenantId],
        )
      ).rows[0]!.n;

    const sending = Promise.all(Array.from({ length: CLIENTS }, sendAll));
    await waitFor(async () => (await kept()) >= (BATCHES * PER_BATCH) / 4, 'ingestion under way');
    await killChild(servers[0]!, 'SIGKILL');
    const killedAt = await kept();
    assert.ok(killedAt < BATCHES * PER_BATCH, 'the server was killed before the end');
    servers.push(await startChildServer(database.url));
    url = servers[1]!.url;
    await sending;

    assert.ok(failures > 0, 'the crash was felt by the clients');
    assert.equal(await kept(), BATCHES * PER_BATCH, 'every event kept, once');
    assert.equal(seen.size, BATCHES * PER_BATCH);
    for (const [id, outcomes] of seen) {
      assert.ok(
        outcomes.every((o) => o === 'accepted' || o === 'duplicate'),
        `${id}: ${outcomes.join(', ')}`,
      );
      assert.ok(outcomes.filter((o) => o === 'accepted').length <= 1, `${id} accepted twice`);
    }
    const summary = async (meterId: string) => {
      const query = new URLSearchParams({
        customerId: customer,
        from: new Date(now - 2 * 3600_000).toISOString(),
        to: new Date(now + 60_000).toISOString(),
      });
      const res = await call('GET', `/v1/meters/${meterId}/summaries?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.data[0].value as string;
    };
    assert.equal(await summary(meters.count!), String(BATCHES * PER_BATCH));
    const sum = expectedSum.toString();
    assert.equal(
      await summary(meters.sum!),
      `${sum.slice(0, -2)}.${sum.slice(-2)}`.replace(/\.?0+$/, ''),
    );
  });
});
