import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { localDate } from '../../src/subscriptions/calendar.ts';
import {
  MAX_BUCKETS,
  splitByHour,
  startsLocalHour,
  summaryBuckets,
} from '../../src/usage/buckets.ts';
import { isMeterValue } from '../../src/usage/values.ts';
import { createMigratedDatabase } from '../helpers.ts';

// The pure rules of usage: what a meter reads of a property (held to the database's own rule,
// which measures what is kept), and the buckets of a summary.

const { db } = await createMigratedDatabase();
const HOUR = 3_600_000;

/** Whether the database's usage_measure counts `value` for a meter of `aggregation`. */
async function measuredInDatabase(aggregation: string, value: unknown): Promise<boolean> {
  const { rows } = await db.query<{ counted: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM usage_measure($1, $2::jsonb, 'v')) AS counted`,
    [aggregation, JSON.stringify({ v: value })],
  );
  return rows[0]!.counted;
}

const decimalText = fc
  .tuple(
    fc.constantFrom('', '-', '+', '0', '00'),
    fc.bigInt({ min: 0n, max: 10n ** 22n }),
    fc.option(fc.stringMatching(/^[0-9]{0,14}$/)),
  )
  .map(
    ([prefix, whole, fraction]) => `${prefix}${whole}${fraction === null ? '' : `.${fraction}`}`,
  );

const propertyValue = fc.oneof(
  decimalText,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.double({ min: 0, max: 1e-5, noNaN: true }),
  fc.integer({ min: -10, max: 1_000_000_000 }),
  fc.constantFrom(2 ** 53, 2 ** 53 - 1, 1e21, 1.5e-7, 1e-13, 0.1234567890123),
  fc.string({ maxLength: 210 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

describe('what a meter reads of a property', () => {
  it('is the rule the database measures with, for every aggregation', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('sum', 'max', 'last', 'unique_count', 'count'),
        propertyValue,
        async (aggregation, value) => {
          const sql = await measuredInDatabase(aggregation, value);
          assert.equal(isMeterValue(aggregation as 'sum', value), sql, JSON.stringify(value));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('takes decimals ≥ 0 with up to 12 places, exact numbers below 2^53, strings of any size', () => {
    for (const good of [0, 7, 0.5, 5e-7, '0', '1.000000000001', '123456789012345678901234.5']) {
      assert.ok(isMeterValue('sum', good), String(good));
    }
    for (const bad of [-1, 2 ** 53, 1e-13, '1e3', '01', '.5', '1.', '-0', ' 1', null, true, {}]) {
      assert.ok(!isMeterValue('sum', bad), String(bad));
    }
  });
});

describe('summary buckets', () => {
  const zones = fc.constantFrom(
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'America/Havana',
    'Pacific/Chatham',
    'UTC',
  );
  const range = fc
    .tuple(
      fc.integer({ min: Date.parse('2026-01-01'), max: Date.parse('2028-12-31') }),
      fc.integer({ min: 1, max: 40 * 86_400_000 }),
    )
    .map(([from, length]) => [new Date(from), new Date(from + length)] as const);

  it('cut [from, to) at every local midnight, and nowhere else', () => {
    fc.assert(
      fc.property(zones, range, (zone, [from, to]) => {
        const buckets = summaryBuckets(from, to, 'day', zone);
        assert.equal(buckets[0]!.start.getTime(), from.getTime());
        assert.equal(buckets.at(-1)!.end.getTime(), to.getTime());
        for (const [i, bucket] of buckets.entries()) {
          assert.ok(bucket.start < bucket.end);
          if (i > 0) assert.equal(bucket.start.getTime(), buckets[i - 1]!.end.getTime());
          // Every instant of a bucket has one local date: its start's.
          const day = localDate(bucket.start, zone);
          assert.equal(localDate(new Date(bucket.end.getTime() - 1), zone), day);
          if (i > 0) assert.notEqual(localDate(new Date(bucket.start.getTime() - 1), zone), day);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('cut [from, to) where the local clock shows another hour, and nowhere else', () => {
    const QUARTER = 15 * 60_000;
    fc.assert(
      fc.property(
        zones,
        range.map(
          ([from, to]) =>
            [from, new Date(Math.min(to.getTime(), from.getTime() + 900 * HOUR))] as const,
        ),
        (zone, [from, to]) => {
          const buckets = summaryBuckets(from, to, 'hour', zone);
          for (const bucket of buckets.slice(1)) {
            const start = bucket.start.getTime();
            assert.ok(startsLocalHour(start, zone), `${zone} ${bucket.start.toISOString()}`);
          }
          for (const bucket of buckets) {
            const first = Math.floor(bucket.start.getTime() / QUARTER) * QUARTER + QUARTER;
            for (let at = first; at < bucket.end.getTime(); at += QUARTER) {
              assert.ok(!startsLocalHour(at, zone), `${zone} ${new Date(at).toISOString()}`);
            }
            // A local hour lasts 30 to 90 minutes (Lord Howe's half-hour changes).
            assert.ok(bucket.end.getTime() - bucket.start.getTime() <= 1.5 * HOUR);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('gives Lord Howe a 90-minute hour when its clock goes back and a 30-minute one when it jumps', () => {
    const cut = (a: string, b: string) =>
      summaryBuckets(new Date(a), new Date(b), 'hour', 'Australia/Lord_Howe').map((x) =>
        x.start.toISOString().slice(11, 16),
      );
    // 5 April 2026, 02:00 (+11) → 01:30 (+10:30): the hour 01 runs 14:00Z–15:30Z.
    assert.deepEqual(cut('2026-04-04T13:00:00Z', '2026-04-04T17:00:00Z'), [
      '13:00',
      '14:00',
      '15:30',
      '16:30',
    ]);
    // 4 October 2026, 02:00 (+10:30) → 02:30 (+11): the hour 02 is 15:30Z–16:00Z.
    assert.deepEqual(cut('2026-10-03T13:30:00Z', '2026-10-03T17:00:00Z'), [
      '13:30',
      '14:30',
      '15:30',
      '16:00',
    ]);
  });

  it('refuses more than the buckets a summary may have', () => {
    const from = new Date('2027-01-01T00:00:00Z');
    const to = new Date(from.getTime() + (MAX_BUCKETS + 1) * HOUR);
    assert.throws(() => summaryBuckets(from, to, 'hour', 'UTC'), /at most 1000 buckets/);
    assert.equal(
      summaryBuckets(from, new Date(from.getTime() + MAX_BUCKETS * HOUR), 'hour', 'UTC').length,
      MAX_BUCKETS,
    );
  });

  it('split each bucket into whole UTC hours and the partial hours at its ends', () => {
    fc.assert(
      fc.property(range, ([from, to]) => {
        const { hours, spans } = splitByHour([{ start: from, end: to }]);
        const pieces = [...hours, ...spans].sort((a, b) => a.from.getTime() - b.from.getTime());
        assert.equal(pieces[0]!.from.getTime(), from.getTime());
        assert.equal(pieces.at(-1)!.to.getTime(), to.getTime());
        pieces.slice(1).forEach((p, i) => assert.equal(p.from.getTime(), pieces[i]!.to.getTime()));
        for (const h of hours) {
          assert.equal(h.from.getTime() % HOUR, 0);
          assert.equal(h.to.getTime() % HOUR, 0);
        }
        for (const s of spans) assert.ok(s.to.getTime() - s.from.getTime() < 2 * HOUR);
      }),
      { numRuns: 300 },
    );
  });
});
