// Schemas of events: they validate requests, type the handlers and feed the OpenAPI document.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CreditNote } from '../credit-notes/schemas.ts';
import { Customer } from '../customers/schemas.ts';
import { Environment, Nullable, StringEnum, Timestamp } from '../http/schemas.ts';
import { ListQuery } from '../http/resource-schemas.ts';
import { Invoice } from '../invoices/schemas.ts';
import { Payment } from '../payments/schemas.ts';
import { ApiKey } from '../keys/schemas.ts';
import { Settings } from '../settings/schemas.ts';
import { Subscription } from '../subscriptions/schemas.ts';
import { TestClock } from '../test-clocks/schemas.ts';
import { TaxRate } from '../taxes/schemas.ts';
import { EVENT_TYPES } from './types.ts';

export const EventType = StringEnum(EVENT_TYPES, {
  description: 'An event type of the contract, such as `customer.created`.',
});

/**
 * The objects events carry, told apart by their `object` field. Each is the resource as the
 * API returned it at the time of the change.
 */
const EVENT_OBJECTS = [
  Customer,
  Invoice,
  CreditNote,
  TaxRate,
  Payment,
  ApiKey,
  Settings,
  Subscription,
  TestClock,
] as const;
type EventObject = Static<(typeof EVENT_OBJECTS)[number]>;

function objectName(schema: TSchema): string {
  const name = (schema.properties as { object?: { const?: string } } | undefined)?.object?.const;
  if (!name) throw new Error(`${schema.title}: an event object needs a constant \`object\``);
  return name;
}

const EventObject = Type.Unsafe<EventObject>({
  oneOf: [...EVENT_OBJECTS],
  discriminator: {
    propertyName: 'object',
    mapping: Object.fromEntries(
      EVENT_OBJECTS.map((schema) => [objectName(schema), `#/components/schemas/${schema.title}`]),
    ),
  },
  description: 'A snapshot of the object after the change.',
});

export const EventData = Type.Object(
  {
    object: EventObject,
    actorKeyId: Type.Optional(
      Nullable(
        Type.String({
          description: 'On `api_key.*`: the key that made the change; null for the operator (CLI).',
        }),
      ),
    ),
    previousKey: Type.Optional(ApiKey),
  },
  {
    title: 'EventData',
    additionalProperties: true,
    description:
      '`object` is the snapshot; some types add context, such as `actorKeyId` and `previousKey` (on `api_key.rotated`).',
  },
);

/** Who made the change (docs/api.md, "Events"). */
export const EventActor = Nullable(
  Type.Union(
    [
      Type.Object(
        {
          type: Type.Literal('user'),
          id: Type.String({ description: 'usr_…' }),
          email: Type.String(),
        },
        { additionalProperties: false, description: 'A person signed in to the console.' },
      ),
      Type.Object(
        { type: Type.Literal('api_key'), id: Type.String({ description: 'key_…' }) },
        { additionalProperties: false, description: 'An API key.' },
      ),
      Type.Object(
        { type: Type.Literal('system') },
        {
          additionalProperties: false,
          description: 'The server itself: the worker, the billing run, the operator’s CLI.',
        },
      ),
    ],
    {
      title: 'EventActor',
      description:
        'Who made the change: a console user, an API key or the system; null on events recorded before actors were.',
    },
  ),
);

export const Event = Type.Object(
  {
    id: Type.String({ description: 'evt_…' }),
    object: Type.Literal('event'),
    type: EventType,
    createdAt: Timestamp,
    environment: Environment,
    data: EventData,
    actor: EventActor,
  },
  { title: 'Event' },
);
export type Event = Static<typeof Event>;

/** The body a webhook endpoint receives (Standard Webhooks). */
export const WebhookPayload = Type.Object(
  {
    type: EventType,
    timestamp: Timestamp,
    data: EventData,
    actor: EventActor,
  },
  { title: 'WebhookPayload', description: 'The event’s type, time, data and actor.' },
);

export const EventListQuery = ListQuery({ type: Type.Optional(EventType) });
