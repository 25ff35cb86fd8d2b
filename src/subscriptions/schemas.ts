// The shapes of subscriptions (API.md part D, "Subscriptions"): what a request may send, what
// the API answers. The rules behind them are in docs/subscriptions.md.
import { Type, type Static } from '@sinclair/typebox';
import { StoredObject } from '../http/resource-schemas.ts';
import {
  Metadata,
  Nullable,
  NullableTimestamp,
  PageQuery,
  StringEnum,
  Timestamp,
} from '../http/schemas.ts';

export const MAX_ITEMS = 20;

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Quantity = Type.Integer({ minimum: 0, maximum: 1_000_000_000 });

export const ProrationBehavior = StringEnum(['create_prorations', 'always_invoice', 'none'], {
  description:
    '`create_prorations` (default): proration lines wait for the next invoice; `always_invoice`: an invoice now (reason `subscription_update`); `none`: no proration.',
});
const FirstPeriodProration = StringEnum(['create_prorations', 'none'], {
  description: 'How a first period shorter than an interval is billed: prorated (default) or free.',
});

export const SubscriptionStatus = StringEnum([
  'scheduled',
  'trialing',
  'active',
  'past_due',
  'paused',
  'canceled',
]);

export const BillingReason = StringEnum([
  'subscription_create',
  'subscription_cycle',
  'subscription_update',
  'subscription_cancel',
]);
export type BillingReason = Static<typeof BillingReason>;

const ItemCreate = Type.Object(
  {
    priceId: Id,
    quantity: Type.Optional(Quantity),
  },
  { additionalProperties: false, title: 'SubscriptionItemCreate' },
);

export const SubscriptionCreate = Type.Object(
  {
    customerId: Id,
    items: Type.Array(ItemCreate, { minItems: 1, maxItems: MAX_ITEMS }),
    startAt: Type.Optional(Timestamp),
    billingCycleAnchor: Type.Optional(Timestamp),
    trialEnd: Type.Optional(Timestamp),
    trialDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 730 })),
    prorationBehavior: Type.Optional(FirstPeriodProration),
    daysUntilDue: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 })),
    defaultTaxRates: Type.Optional(Type.Array(Id, { maxItems: 10 })),
    autoSend: Type.Optional(Type.Boolean()),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    title: 'SubscriptionCreate',
    examples: [
      {
        customerId: 'cus_8kQm2Zt7Wc1p',
        items: [{ priceId: 'price_8kQm2Zt7Wc1q', quantity: 3 }],
        trialDays: 14,
        daysUntilDue: 14,
      },
    ],
  },
);
export type SubscriptionCreate = Static<typeof SubscriptionCreate>;

const ItemChange = Type.Object(
  {
    id: Type.Optional(Id),
    priceId: Type.Optional(Id),
    quantity: Type.Optional(Quantity),
    deleted: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: false,
    title: 'SubscriptionItemChange',
    description:
      'With `id`: changes that item (`priceId`, `quantity`) or removes it (`deleted: true`). Without: adds an item (`priceId` required).',
  },
);
export type ItemChange = Static<typeof ItemChange>;

export const SubscriptionUpdate = Type.Object(
  {
    items: Type.Optional(Type.Array(ItemChange, { minItems: 1, maxItems: MAX_ITEMS })),
    prorationBehavior: Type.Optional(ProrationBehavior),
    prorationDate: Type.Optional(Timestamp),
    cancelAtPeriodEnd: Type.Optional(Type.Boolean()),
    trialEnd: Type.Optional(Timestamp),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    title: 'SubscriptionUpdate',
    examples: [
      {
        items: [{ id: 'si_8kQm2Zt7Wc1r', priceId: 'price_8kQm2Zt7Wc1s' }],
        prorationBehavior: 'always_invoice',
      },
    ],
  },
);
export type SubscriptionUpdate = Static<typeof SubscriptionUpdate>;

export const SubscriptionCancel = Type.Object(
  {
    at: Type.Optional(
      Type.Union([StringEnum(['period_end', 'now']), Timestamp], {
        description: '`period_end` (default), `now`, or an instant within the current period.',
      }),
    ),
    prorate: Type.Optional(Type.Boolean()),
    invoiceNow: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: false,
    title: 'SubscriptionCancel',
    examples: [{ at: 'now', prorate: true }],
  },
);
export type SubscriptionCancel = Static<typeof SubscriptionCancel>;

export const SubscriptionPause = Type.Object(
  {
    behavior: StringEnum(['void', 'keep_as_draft', 'mark_uncollectible']),
    resumesAt: Type.Optional(Timestamp),
  },
  {
    additionalProperties: false,
    title: 'SubscriptionPause',
    examples: [{ behavior: 'void', resumesAt: '2027-03-01T00:00:00.000Z' }],
  },
);
export type SubscriptionPause = Static<typeof SubscriptionPause>;

const Period = Type.Object({ start: Timestamp, end: Timestamp }, { title: 'Period' });

const SubscriptionItem = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('subscription_item'),
    price: Type.Object(
      {
        id: Type.String(),
        productId: Type.String(),
        currency: Type.String(),
        nickname: Nullable(Type.String()),
        recurring: Type.Object({
          interval: StringEnum(['day', 'week', 'month', 'year']),
          intervalCount: Type.Integer(),
          usage: StringEnum(['licensed', 'metered']),
        }),
      },
      { title: 'SubscriptionItemPrice', additionalProperties: true },
    ),
    quantity: Type.Integer(),
  },
  { title: 'SubscriptionItem' },
);

export const Subscription = StoredObject('Subscription', 'subscription', 'sub_…', {
  status: SubscriptionStatus,
  customerId: Type.String(),
  currency: Type.String(),
  items: Type.Array(SubscriptionItem),
  currentPeriod: Nullable(Period),
  billingCycleAnchor: Timestamp,
  startAt: Timestamp,
  timeZone: Type.String(),
  trialStart: NullableTimestamp,
  trialEnd: NullableTimestamp,
  cancelAtPeriodEnd: Type.Boolean(),
  cancelAt: NullableTimestamp,
  canceledAt: NullableTimestamp,
  endedAt: NullableTimestamp,
  pause: Nullable(
    Type.Object({
      behavior: StringEnum(['void', 'keep_as_draft', 'mark_uncollectible']),
      resumesAt: NullableTimestamp,
    }),
  ),
  latestInvoiceId: Nullable(Type.String()),
  nextInvoiceAt: NullableTimestamp,
  testClockId: Nullable(Type.String()),
  daysUntilDue: Nullable(Type.Integer()),
  defaultTaxRates: Type.Array(Type.String()),
  autoSend: Type.Boolean(),
  description: Nullable(Type.String()),
  metadata: Metadata,
});
export type Subscription = Static<typeof Subscription>;

export const SubscriptionListQuery = Type.Object(
  {
    ...PageQuery,
    customerId: Type.Optional(Id),
    status: Type.Optional(SubscriptionStatus),
    priceId: Type.Optional(Id),
  },
  { additionalProperties: false },
);

/** A line a change (or the next boundary) would bill: the answer of preview-change. */
export const ProposedLine = Type.Object(
  {
    description: Type.String(),
    quantity: Type.Integer(),
    quantityDecimal: Nullable(
      Type.String({ description: 'A metered line’s exact quantity when it is not whole.' }),
    ),
    amount: Type.Integer(),
    period: Period,
    priceId: Type.String(),
    subscriptionItemId: Type.String(),
    proration: Type.Boolean(),
  },
  { title: 'ProposedLine' },
);

export const ChangePreview = Type.Object(
  {
    lines: Type.Array(ProposedLine),
    subtotal: Type.Integer(),
    total: Type.Integer(),
  },
  { title: 'SubscriptionChangePreview' },
);

export const UpcomingInvoice = Type.Object(
  {
    id: Type.Null(),
    object: Type.Literal('upcoming_invoice'),
    subscriptionId: Type.String(),
    customerId: Type.String(),
    currency: Type.String(),
    billingReason: BillingReason,
    createdAt: Timestamp,
    lines: Type.Array(ProposedLine),
    subtotal: Type.Integer(),
    tax: Type.Integer(),
    total: Type.Integer(),
  },
  {
    title: 'UpcomingInvoice',
    description: 'What the next boundary would invoice; `createdAt` is when it would be made.',
  },
);

export const SubscriptionUsage = Type.Object(
  {
    data: Type.Array(
      Type.Object({
        subscriptionItemId: Type.String(),
        meterId: Type.String(),
        period: Period,
        value: Type.String({ description: 'The meter’s aggregation so far, an exact decimal.' }),
      }),
    ),
  },
  { title: 'SubscriptionUsage' },
);
