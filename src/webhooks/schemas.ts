// Schemas of webhook endpoints and deliveries: they validate requests, type the handlers and
// feed the OpenAPI document.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../http/schemas.ts';
import { Stamps } from '../http/resource-schemas.ts';
import { EVENT_TYPES } from '../events/types.ts';
import { EventType } from '../events/schemas.ts';

export const EnabledEventType = StringEnum([...EVENT_TYPES, '*'], {
  description: 'An event type, or `*` for every type.',
});

const EnabledEvents = Type.Array(EnabledEventType, {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: 'The event types sent to this endpoint, or `["*"]` for every type.',
});

const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'An `https` URL that resolves to public addresses only (checked on creation and at every delivery).',
});

export const WebhookEndpointCreate = Type.Object(
  {
    url: WebhookUrl,
    enabledEvents: EnabledEvents,
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    disabled: Type.Optional(Type.Boolean({ description: 'Create it disabled (default false).' })),
  },
  {
    additionalProperties: false,
    title: 'WebhookEndpointCreate',
    examples: [
      {
        url: 'https://example.com/billing/webhooks',
        enabledEvents: ['invoice.paid', 'invoice.voided'],
        description: 'Accounting system',
      },
    ],
  },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreate>;

export const WebhookEndpointUpdate = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    enabledEvents: Type.Optional(EnabledEvents),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    disabled: Type.Optional(
      Type.Boolean({
        description:
          '`true` stops deliveries and cancels pending ones; `false` re-enables an endpoint, also one disabled by the service.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'WebhookEndpointUpdate',
    examples: [{ enabledEvents: ['*'] }],
  },
);
export type WebhookEndpointUpdate = Static<typeof WebhookEndpointUpdate>;

const DisabledReason = Nullable(
  StringEnum(['requested', 'gone', 'failing'], {
    description:
      '`requested`: disabled through the API; `gone`: the receiver answered 410 Gone; `failing`: every attempt failed for 5 days; null while enabled.',
  }),
);

const endpointFields = {
  id: Type.String({ description: 'we_…' }),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  enabledEvents: Type.Array(EnabledEventType),
  description: Nullable(Type.String()),
  disabled: Type.Boolean(),
  disabledReason: DisabledReason,
  ...Stamps,
};
export const WebhookEndpoint = Type.Object(endpointFields, { title: 'WebhookEndpoint' });
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({
      description:
        'whsec_… (base64 of 24 random bytes): verifies the `webhook-signature` header. Shown this once only.',
    }),
  },
  { title: 'WebhookEndpointWithSecret' },
);

export const DeletedWebhookEndpoint = Type.Object(
  { id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) },
  { title: 'DeletedWebhookEndpoint' },
);

export const WebhookAttempt = Type.Object(
  {
    attempt: Type.Integer({ description: '1 for the first attempt.' }),
    attemptedAt: Timestamp,
    durationMs: Type.Integer(),
    responseStatus: Nullable(Type.Integer({ description: 'null when no response came.' })),
    error: Nullable(Type.String({ description: 'Why the attempt failed; null on a 2xx.' })),
    responseBody: Nullable(Type.String({ description: 'The first 1 KB of the response body.' })),
  },
  { title: 'WebhookAttempt' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'wd_…' }),
    object: Type.Literal('webhook_delivery'),
    endpointId: Type.String(),
    eventId: Type.String({ description: 'Also the `webhook-id` header of every attempt.' }),
    eventType: EventType,
    status: StringEnum(['pending', 'succeeded', 'failed', 'cancelled'], {
      description:
        '`pending`: waiting for its next attempt (or being attempted); `failed`: retries exhausted or the receiver answered 410; `cancelled`: the endpoint was disabled first.',
    }),
    attemptCount: Type.Integer(),
    nextAttemptAt: NullableTimestamp,
    createdAt: Timestamp,
    attempts: Type.Array(WebhookAttempt, { description: 'Every attempt, oldest first.' }),
  },
  { title: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});
