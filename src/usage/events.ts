// One usage event as a request gives it, checked on its own: a batch is taken event by event,
// so an event that breaks a rule gets an outcome of its own instead of refusing the request.
// Pure: what needs the database (customers, meters, time) is checked in ./ingestion.ts.
import { hash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.ts';
import { EVENT_ID_PATTERN, EVENT_NAME_PATTERN, type UsageEventErrorCode } from './schemas.ts';

/** An event whose fields have their shapes. */
export interface UsageEventRecord {
  id: string;
  eventName: string;
  customerId: string;
  occurredAt: Date;
  /** The instant as ISO 8601 in UTC, to the millisecond: as hashed and as stored. */
  utcTimestamp: string;
  properties: Record<string, unknown>;
  /** SHA-256 of its content as canonical JSON: what tells a duplicate from a reused id. */
  hash: Buffer;
}

export interface EventRefusal {
  code: UsageEventErrorCode;
  message: string;
}

/**
 * An event as checked: its record (refused later, by what the database says, or not), or why
 * its shape is refused (with its id when that was usable).
 */
export type CheckedEvent =
  | { sentId: string; id: string; event: UsageEventRecord; refusal?: EventRefusal }
  | { sentId: string | null; id: string | null; event?: undefined; refusal: EventRefusal };

const FIELDS = new Set(['id', 'eventName', 'customerId', 'timestamp', 'properties']);
const EVENT_ID = new RegExp(EVENT_ID_PATTERN);
const EVENT_NAME = new RegExp(EVENT_NAME_PATTERN);
const CUSTOMER_ID = /^[\x21-\x7e]{1,100}$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const MAX_PROPERTIES_JSON = 4096;
// JSON text escapes NUL as \u0000 and a lone surrogate as \udXXX (PostgreSQL stores neither);
// an escape preceded by an odd number of backslashes is one, an even number is literal text.
const UNSTORABLE_ESCAPE = /(?<!\\)(?:\\\\)*\\u(?:0000|d[89a-f][0-9a-f]{2})/i;

function refused(sentId: string | null, id: string | null, message: string): CheckedEvent {
  return { sentId, id, refusal: { code: 'parameter_invalid', message } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The instant of an RFC 3339 date-time with its offset, or null. Its calendar day must exist:
 * Date.parse rolls Feb 30 over to March, so the day is checked on a date set to it.
 */
function instantOf(text: string): Date | null {
  const match = DATE_TIME.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day) return null;
  return new Date(Date.parse(text));
}

function contentHash(event: Omit<UsageEventRecord, 'id' | 'occurredAt' | 'hash'>): Buffer {
  const { eventName, customerId, utcTimestamp, properties } = event;
  const content = { eventName, customerId, timestamp: utcTimestamp, properties };
  return hash('sha256', canonicalJson(content), 'buffer');
}

/** Checks one event of a batch: its fields, their shapes, and the size of its properties. */
export function checkEvent(sent: unknown): CheckedEvent {
  if (!isObject(sent)) {
    return refused(
      null,
      null,
      'An event is a JSON object: { id, eventName, customerId, timestamp, properties }.',
    );
  }
  const sentId = typeof sent.id === 'string' ? sent.id : null;
  if (sentId === null || !EVENT_ID.test(sentId)) {
    return refused(sentId, null, 'id must be 1–255 printable ASCII characters.');
  }
  const invalid = (message: string) => refused(sentId, sentId, message);
  const unknown = Object.keys(sent).find((field) => !FIELDS.has(field));
  if (unknown !== undefined) return invalid(`Unknown field: ${unknown}.`);
  const { eventName, customerId, timestamp, properties = {} } = sent;
  if (typeof eventName !== 'string' || !EVENT_NAME.test(eventName)) {
    return invalid('eventName must be 1–100 printable ASCII characters without spaces.');
  }
  if (typeof customerId !== 'string' || !CUSTOMER_ID.test(customerId)) {
    return invalid('customerId must be the id of a customer (cus_…).');
  }
  const occurredAt = typeof timestamp === 'string' ? instantOf(timestamp) : null;
  if (occurredAt === null) {
    return invalid(
      'timestamp must be an RFC 3339 date-time with its offset, e.g. 2027-01-15T09:30:00Z.',
    );
  }
  if (!isObject(properties)) return invalid('properties must be a JSON object.');
  const json = JSON.stringify(properties);
  if (json.length > MAX_PROPERTIES_JSON) {
    return invalid(`properties must be at most ${MAX_PROPERTIES_JSON} characters of JSON.`);
  }
  if (UNSTORABLE_ESCAPE.test(json)) {
    return invalid(
      'properties contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored.',
    );
  }
  const content = { eventName, customerId, utcTimestamp: occurredAt.toISOString(), properties };
  const record = { id: sentId, ...content, occurredAt, hash: contentHash(content) };
  return { sentId, id: sentId, event: record };
}
