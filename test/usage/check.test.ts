import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../src/canonical-json.ts';
import { checkEvent } from '../../src/usage/events.ts';

// The checks of one event, without the database. An event's content hash is stored with it and
// compared with every retry's for as long as the event is kept, so how it is computed may
// never change: the SHA-256 of the content (event name, customer, instant as ISO 8601 in UTC,
// properties) as canonical JSON.

const reference = (content: Record<string, unknown>): string =>
  createHash('sha256').update(canonicalJson(content)).digest('hex');

const hashOf = (sent: Record<string, unknown>): string => {
  const checked = checkEvent(sent);
  assert.ok(checked.event, JSON.stringify(checked.refusal));
  return checked.event.hash.toString('hex');
};

describe('usage event checks', () => {
  it('hashes the content as it always has', () => {
    const sent = {
      id: 'evt_1',
      eventName: 'api_request',
      customerId: 'cus_1',
      timestamp: '2027-01-15T10:30:00.125+01:00',
      properties: { units: '2.5', endpoint: '/search', nested: { b: [1, true, null], a: 'é' } },
    };
    // Fixed once: a change of the canonical form or the instant's text fails here.
    assert.equal(hashOf(sent), 'c167774f8df29d3c70fb3b77494bc0126d36b949a249667a4f6a96cb49808d7f');
  });

  it('hashes any content as the canonical JSON of its fields', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20, unit: fc.constantFrom(...'abc_.:-XYZ019') }),
        fc.string({ minLength: 1, maxLength: 20, unit: fc.constantFrom(...'cus_ABC019') }),
        fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: 6,
        }),
        (eventName, customerId, at, properties) => {
          // As a request carries it: through JSON, which drops -0 and keeps what is stored.
          const sentProperties = JSON.parse(JSON.stringify(properties)) as Record<string, unknown>;
          const sent = {
            id: 'evt',
            eventName,
            customerId,
            timestamp: at.toISOString(),
            properties: sentProperties,
          };
          const checked = checkEvent(sent);
          if (!checked.event) return; // a property the store refuses (NUL, lone surrogate)
          assert.equal(
            checked.event.hash.toString('hex'),
            reference({
              eventName,
              customerId,
              timestamp: at.toISOString(),
              properties: sentProperties,
            }),
          );
        },
      ),
    );
  });

  it('takes a timestamp only on a day the calendar has', () => {
    const ok = (timestamp: string) => checkEvent({ ...base, timestamp }).event !== undefined;
    const base = { id: 'evt', eventName: 'e', customerId: 'cus_1', properties: {} };
    for (const day of ['2024-02-29', '2000-02-29', '0000-02-29', '2027-12-31', '0001-01-01']) {
      assert.equal(ok(`${day}T00:00:00Z`), true, day);
    }
    for (const day of ['2027-02-29', '1900-02-29', '2027-04-31', '2027-00-10', '2027-13-01']) {
      assert.equal(ok(`${day}T00:00:00Z`), false, day);
    }
    assert.equal(ok('2027-01-00T00:00:00Z'), false);
    // Any day, as the calendar of JavaScript's Date (proleptic Gregorian, year 0 a leap year).
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (year, month, day) => {
          const text = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
          const real = new Date(`${text}T00:00:00Z`);
          const exists = !Number.isNaN(real.getTime()) && real.toISOString().startsWith(text);
          assert.equal(ok(`${text}T12:00:00Z`), exists, text);
        },
      ),
    );
  });

  it('reads the instant with its offset, to the millisecond', () => {
    const at = (timestamp: string) =>
      checkEvent({ id: 'e', eventName: 'e', customerId: 'c', timestamp }).event?.occurredAt;
    assert.equal(at('2027-01-15T10:30:00.125+01:00')?.toISOString(), '2027-01-15T09:30:00.125Z');
    assert.equal(at('2027-01-15t10:30:00z')?.toISOString(), '2027-01-15T10:30:00.000Z');
    assert.equal(at('2027-01-15T23:30:00-02:00')?.toISOString(), '2027-01-16T01:30:00.000Z');
  });
});
