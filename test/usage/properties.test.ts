import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { TenantScope } from '../../src/tenancy.ts';
import { aggregateUsage } from '../../src/usage/service.ts';
import { startInvoiceApp, tenantApi } from '../invoices/fixtures.ts';
import { clockCustomer, createClock } from '../subscriptions/fixtures.ts';
import { createMeter, type Outcome } from './fixtures.ts';

// Random batches with random duplicates (retries of the same event) and reused ids (the same id
// with other content), sent one after another or all at once: every id is accepted exactly
// once, every other copy answers duplicate or idempotency_key_reused by its content, and each
// meter aggregates the accepted events to what a model in exact decimals computes.

const server = await startInvoiceApp();
const { api, key } = await tenantApi(server);
const scope: TenantScope = { tenantId: key.tenantId, environment: 'test' };
const NOW = Date.parse('2027-01-15T12:00:00.000Z');
const WINDOW = 3 * 86_400_000;
const clock = await createClock(api, new Date(NOW).toISOString());
const AGGREGATIONS = ['sum', 'count', 'max', 'last', 'unique_count'] as const;
const meters = new Map<(typeof AGGREGATIONS)[number], string>();
for (const aggregation of AGGREGATIONS) {
  const valueProperty = aggregation === 'count' ? undefined : 'v';
  meters.set(
    aggregation,
    (await createMeter(api, { eventName: 'prop', aggregation, valueProperty })).id,
  );
}

const SCALE = 10n ** 12n;
/** Decimal text with up to 12 places as a count of 10^-12, and back in shortest form. */
const scaled = (text: string) => {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * SCALE + BigInt(fraction.padEnd(12, '0'));
};
const decimal = (value: bigint) => {
  const fraction = (value % SCALE).toString().padStart(12, '0').replace(/0+$/, '');
  return fraction === '' ? `${value / SCALE}` : `${value / SCALE}.${fraction}`;
};

const DECIMALS = ['0', '0.5', '2', '7', '1.000000000001', '123456789.123456789012', '0.1'];
/** A value as a JSON string or, where a double holds it exactly, as a JSON number. */
const value = fc
  .tuple(fc.constantFrom(...DECIMALS), fc.boolean())
  .map(([text, asNumber]) => (asNumber && String(Number(text)) === text ? Number(text) : text));

interface Content {
  customer: number;
  at: number;
  v: string | number;
}
const content = fc.record({
  customer: fc.integer({ min: 0, max: 1 }),
  at: fc.integer({ min: NOW - WINDOW, max: NOW }),
  v: value,
});

/** A plan: distinct ids with their contents; batches of copies, some with other content. */
const plan = fc.array(content, { minLength: 1, maxLength: 25 }).chain((contents) =>
  fc.record({
    contents: fc.constant(contents),
    batches: fc.array(
      fc.array(
        fc.record({
          index: fc.integer({ min: 0, max: contents.length - 1 }),
          other: fc.option(content, { freq: 5 }),
        }),
        { minLength: 1, maxLength: 30 },
      ),
      { minLength: 1, maxLength: 5 },
    ),
    concurrent: fc.boolean(),
    range: fc.tuple(
      fc.integer({ min: NOW - WINDOW, max: NOW }),
      fc.integer({ min: NOW - WINDOW, max: NOW }),
    ),
  }),
);

/** What a meter's aggregation of these events is, by the contract, in exact decimals. */
function modelOf(aggregation: string, events: readonly Content[]): string[] {
  if (aggregation === 'count') return [String(events.length)];
  if (aggregation === 'unique_count') {
    return [String(new Set(events.map((e) => JSON.stringify(e.v))).size)];
  }
  if (events.length === 0) return ['0'];
  const values = events.map((e) => scaled(String(e.v)));
  if (aggregation === 'sum') return [decimal(values.reduce((a, b) => a + b, 0n))];
  if (aggregation === 'max') return [decimal(values.reduce((a, b) => (b > a ? b : a)))];
  // last: any event of the latest instant.
  const latest = Math.max(...events.map((e) => e.at));
  return events.filter((e) => e.at === latest).map((e) => decimal(scaled(String(e.v))));
}

let run = 0;

describe('usage events, property', () => {
  it('count each id once and aggregate what a model computes, sent in turn or all at once', async () => {
    await fc.assert(
      fc.asyncProperty(plan, async ({ contents, batches, concurrent, range }) => {
        run += 1;
        const customers = [await clockCustomer(api, clock.id), await clockCustomer(api, clock.id)];
        const sent = batches.map((batch) =>
          batch.map(({ index, other }) => {
            const c = other ?? contents[index]!;
            return {
              content: c,
              event: {
                id: `run${run}-${index}`,
                eventName: 'prop',
                customerId: customers[c.customer]!.id,
                timestamp: new Date(c.at).toISOString(),
                properties: { v: c.v },
              },
            };
          }),
        );
        const post = (batch: (typeof sent)[number]) =>
          api.post('/v1/usage-events', { events: batch.map((s) => s.event) });
        const answers = [];
        if (concurrent) answers.push(...(await Promise.all(sent.map(post))));
        else for (const batch of sent) answers.push(await post(batch));

        const kept = new Map<string, Content>();
        answers.forEach((answer, b) => {
          assert.equal(answer.status, 200, answer.text);
          (answer.body.data as Outcome[]).forEach((outcome, i) => {
            const { event, content: c } = sent[b]![i]!;
            assert.equal(outcome.id, event.id);
            if (outcome.status === 'accepted') {
              assert.ok(!kept.has(event.id), `${event.id} accepted twice`);
              kept.set(event.id, c);
            }
          });
        });
        const sameContent = (a: Content, b: Content) => JSON.stringify(a) === JSON.stringify(b);
        answers.forEach((answer, b) => {
          (answer.body.data as Outcome[]).forEach((outcome, i) => {
            const { event, content: c } = sent[b]![i]!;
            const accepted = kept.get(event.id);
            assert.ok(accepted, `${event.id} never accepted`);
            if (outcome.status === 'accepted') return;
            const expected = sameContent(c, accepted) ? 'duplicate' : 'idempotency_key_reused';
            assert.equal(outcome.error?.code ?? outcome.status, expected, JSON.stringify(outcome));
          });
        });

        const { rows } = await server.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM usage_events
            WHERE tenant_id = $1 AND customer_id = ANY($2::text[])`,
          [key.tenantId, customers.map((c) => c.id)],
        );
        assert.equal(rows[0]!.n, kept.size);

        const [a, b] = range;
        const spans: [number, number][] = [
          [NOW - WINDOW, NOW + 1],
          [Math.min(a, b), Math.max(a, b)],
        ];
        for (const [from, to] of spans) {
          for (const [c, customer] of customers.entries()) {
            const events = [...kept.values()].filter(
              (e) => e.customer === c && e.at >= from && e.at < to,
            );
            for (const [aggregation, meterId] of meters) {
              const actual = await aggregateUsage(
                server.db,
                scope,
                meterId,
                customer.id,
                new Date(from),
                new Date(to),
              );
              const expected = from < to ? modelOf(aggregation, events) : ['0'];
              assert.ok(
                expected.includes(actual),
                `${aggregation} over [${from}, ${to}): ${actual}, expected ${expected.join(' or ')}`,
              );
            }
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
