// The shapes of meters, usage events and usage summaries (docs/usage.md): they validate
// requests, type the handlers and feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp } from '../http/schemas.ts';
import { ObjectId, Stamps } from '../http/resource-schemas.ts';

/** Events a request may carry. */
export const MAX_EVENTS = 1000;

/** An event's name, as meters and events give it: printable ASCII without spaces. */
export const EVENT_NAME_PATTERN = '^[\\x21-\\x7e]{1,100}$';
/** An event's id: 1–255 printable ASCII characters (as an Idempotency-Key). */
export const EVENT_ID_PATTERN = '^[\\x20-\\x7e]{1,255}$';

const AGGREGATIONS = ['sum', 'count', 'unique_count', 'max', 'last'] as const;
const METER_STATUSES = ['active', 'inactive'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

const EventName = Type.String({
  pattern: EVENT_NAME_PATTERN,
  description: '1–100 printable ASCII characters without spaces, e.g. `api_request`.',
  examples: ['api_request'],
});
const Aggregation = StringEnum(AGGREGATIONS, {
  description:
    'sum, max or last of `valueProperty`; count of events; unique_count of distinct values of `valueProperty`.',
});
const ValueProperty = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    'The top-level property of `properties` the meter reads: a decimal ≥ 0 with up to 12 decimal places (sum, max, last) or any JSON scalar (unique_count). Not for count.',
  examples: ['bytes'],
});
const DisplayName = Type.String({ minLength: 1, maxLength: 250, examples: ['API requests'] });
const MeterStatus = StringEnum(METER_STATUSES, {
  description: 'active: events are checked against it; inactive: it keeps measuring, unchecked.',
});

export const MeterCreate = Type.Object(
  {
    eventName: EventName,
    aggregation: Aggregation,
    valueProperty: Type.Optional(ValueProperty),
    displayName: DisplayName,
    status: Type.Optional(MeterStatus),
  },
  {
    additionalProperties: false,
    title: 'MeterCreate',
    description:
      '`valueProperty` is required except for `count`, which takes none. A meter measures the events of its name already kept as well as those to come.',
    examples: [
      {
        eventName: 'storage',
        aggregation: 'max',
        valueProperty: 'gigabytes',
        displayName: 'Storage used',
      },
    ],
  },
);
export type MeterCreate = Static<typeof MeterCreate>;

/** Only these change: what a meter measures and how never does. */
export const MeterUpdate = Type.Object(
  { displayName: Type.Optional(DisplayName), status: Type.Optional(MeterStatus) },
  { additionalProperties: false, title: 'MeterUpdate', examples: [{ status: 'inactive' }] },
);
export type MeterUpdate = Static<typeof MeterUpdate>;

export const Meter = Type.Object(
  {
    id: Type.String({ description: 'mtr_…' }),
    object: Type.Literal('meter'),
    eventName: Type.String(),
    aggregation: Aggregation,
    valueProperty: Nullable(Type.String({ description: 'null for count.' })),
    displayName: Type.String(),
    status: MeterStatus,
    ...Stamps,
  },
  { title: 'Meter' },
);
export type Meter = Static<typeof Meter>;

const UsageEvent = Type.Object(
  {
    id: Type.String({
      pattern: EVENT_ID_PATTERN,
      description:
        'Yours, unique per tenant and environment: the event counts once under it, however often it is sent.',
    }),
    eventName: EventName,
    customerId: ObjectId('cus_…'),
    timestamp: Type.String({
      format: 'date-time',
      description:
        'When the usage happened (RFC 3339, kept to the millisecond): at most 35 days before the customer’s current time and 5 minutes after it.',
    }),
    properties: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'What the meters of its name read (at most 4,096 characters of JSON); default `{}`.',
      }),
    ),
  },
  { additionalProperties: false, title: 'UsageEvent' },
);

export const UsageEventBatch = Type.Object(
  { events: Type.Array(UsageEvent, { minItems: 1, maxItems: MAX_EVENTS }) },
  {
    additionalProperties: false,
    title: 'UsageEventBatch',
    description: `1–${MAX_EVENTS} events. Each is checked on its own: one that breaks a rule has an outcome of its own and the others are still taken.`,
    examples: [
      {
        events: [
          {
            id: 'req_0001',
            eventName: 'api_request',
            customerId: 'cus_2xYq4mV9sLk3',
            timestamp: '2027-01-15T09:30:00.000Z',
            properties: { endpoint: '/search', bytes: '1250.5' },
          },
        ],
      },
    ],
  },
);
export type UsageEventBatch = Static<typeof UsageEventBatch>;

/** The codes an event's own refusal can have. */
export const USAGE_EVENT_ERROR_CODES = [
  'parameter_invalid',
  'resource_missing',
  'idempotency_key_reused',
  'timestamp_out_of_range',
  'usage_period_closed',
] as const;
export type UsageEventErrorCode = (typeof USAGE_EVENT_ERROR_CODES)[number];

const UsageEventOutcome = Type.Object(
  {
    id: Nullable(Type.String({ description: 'The event’s id as sent; null if it had none.' })),
    status: StringEnum(['accepted', 'duplicate', 'error'], {
      description:
        'accepted: counted now; duplicate: the same id with the same content was accepted before; error: refused (`error` says why), and may be sent again.',
    }),
    error: Type.Optional(
      Type.Object({
        code: StringEnum(USAGE_EVENT_ERROR_CODES, {
          description:
            'parameter_invalid (a field, or a value a meter needs), resource_missing (the customer), idempotency_key_reused (the id was accepted with other content), timestamp_out_of_range, usage_period_closed (its period is invoiced).',
        }),
        message: Type.String(),
      }),
    ),
  },
  { title: 'UsageEventOutcome' },
);
export type UsageEventOutcome = Static<typeof UsageEventOutcome>;

export const UsageEventOutcomes = Type.Object(
  {
    data: Type.Array(UsageEventOutcome, {
      description: 'One outcome per event, in the order sent.',
    }),
  },
  { title: 'UsageEventOutcomes' },
);
export type UsageEventOutcomes = Static<typeof UsageEventOutcomes>;

const GRANULARITIES = ['hour', 'day', 'none'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const UsageSummaryQuery = Type.Object(
  {
    customerId: ObjectId('cus_…'),
    from: Type.String({ format: 'date-time', description: 'Included.' }),
    to: Type.String({ format: 'date-time', description: 'Excluded; after `from`.' }),
    granularity: Type.Optional(
      StringEnum(GRANULARITIES, {
        description:
          'hour or day buckets on the customer’s time zone, or none (one bucket, the default).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageSummaryQuery = Static<typeof UsageSummaryQuery>;

export const UsageSummaries = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          start: Timestamp,
          end: Timestamp,
          value: Type.String({ description: 'The aggregation, as an exact decimal.' }),
        },
        { title: 'UsageSummary' },
      ),
    ),
  },
  { title: 'UsageSummaries' },
);
export type UsageSummaries = Static<typeof UsageSummaries>;
