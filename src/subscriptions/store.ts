// SQL for subscriptions and their items. Every query takes the tenant and the environment;
// pending proration lines and the ledger of invoices are in ./ledger-store.ts.
import type { Queryable } from '../db/pool.ts';
import { rowById } from '../db/row-by-id.ts';
import { arraysInStep } from '../db/row-writes.ts';
import { pageReader } from '../paging.ts';
import type { TenantScope } from '../tenancy.ts';

export interface SubscriptionRow {
  tenant_id: string;
  environment: 'live' | 'test';
  id: string;
  customer_id: string;
  currency: string;
  status: 'scheduled' | 'trialing' | 'active' | 'past_due' | 'paused' | 'canceled';
  interval: 'day' | 'week' | 'month' | 'year';
  interval_count: number;
  time_zone: string;
  billing_cycle_anchor: Date;
  start_at: Date;
  trial_start: Date | null;
  trial_end: Date | null;
  trial_will_end_sent: boolean;
  current_period_start: Date | null;
  current_period_end: Date | null;
  proration_behavior: 'create_prorations' | 'none';
  cancel_at_period_end: boolean;
  cancel_at: Date | null;
  cancel_prorate: boolean;
  cancel_invoice_now: boolean;
  canceled_at: Date | null;
  ended_at: Date | null;
  pause_behavior: 'void' | 'keep_as_draft' | 'mark_uncollectible' | null;
  pause_resumes_at: Date | null;
  latest_invoice_id: string | null;
  next_action_at: Date | null;
  standing_changed: boolean;
  test_clock_id: string | null;
  days_until_due: number | null;
  default_tax_rates: string[];
  auto_send: boolean;
  description: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
}

export interface ItemRow {
  subscription_id: string;
  id: string;
  price_id: string;
  quantity: number;
  position: number;
  billed_full: number;
  metered_from: Date | null;
}

/** The columns a write sets: every column but the keys and timestamps. */
export type SubscriptionFields = Omit<
  SubscriptionRow,
  'tenant_id' | 'environment' | 'id' | 'created_at' | 'updated_at'
>;

const FIELDS = [
  'customer_id',
  'currency',
  'status',
  'interval',
  'interval_count',
  'time_zone',
  'billing_cycle_anchor',
  'start_at',
  'trial_start',
  'trial_end',
  'trial_will_end_sent',
  'current_period_start',
  'current_period_end',
  'proration_behavior',
  'cancel_at_period_end',
  'cancel_at',
  'cancel_prorate',
  'cancel_invoice_now',
  'canceled_at',
  'ended_at',
  'pause_behavior',
  'pause_resumes_at',
  'latest_invoice_id',
  'next_action_at',
  'standing_changed',
  'test_clock_id',
  'days_until_due',
  'default_tax_rates',
  'auto_send',
  'description',
  'metadata',
] as const satisfies readonly (keyof SubscriptionFields)[];

function values(fields: SubscriptionFields): unknown[] {
  return FIELDS.map((f) => (f === 'metadata' ? JSON.stringify(fields.metadata) : fields[f]));
}

const placeholders = FIELDS.map((_, i) => `$${i + 4}`).join(', ');
const INSERT = `INSERT INTO subscriptions (tenant_id, environment, id, ${FIELDS.join(', ')})
  VALUES ($1, $2, $3, ${placeholders}) RETURNING *`;
const UPDATE = `UPDATE subscriptions SET ${FIELDS.map((f, i) => `${f} = $${i + 4}`).join(', ')},
    updated_at = clock_timestamp()
  WHERE tenant_id = $1 AND environment = $2 AND id = $3 RETURNING *`;

/** Runs INSERT (a new subscription) or UPDATE (its fields saved); the row as it is. */
async function write(
  sql: string,
  db: Queryable,
  scope: TenantScope,
  id: string,
  fields: SubscriptionFields,
): Promise<SubscriptionRow> {
  const { rows } = await db.query<SubscriptionRow>(sql, [
    scope.tenantId,
    scope.environment,
    id,
    ...values(fields),
  ]);
  return rows[0]!;
}

export const insertSubscription = write.bind(null, INSERT);
export const saveSubscription = write.bind(null, UPDATE);

export const selectSubscription = rowById<SubscriptionRow>('SELECT * FROM subscriptions', {
  lock: 'FOR NO KEY UPDATE',
});

export async function selectItems(
  db: Queryable,
  scope: TenantScope,
  subscriptionIds: readonly string[],
): Promise<ItemRow[]> {
  const { rows } = await db.query<ItemRow>(
    `SELECT subscription_id, id, price_id, quantity::float8 AS quantity, position,
            billed_full::float8 AS billed_full, metered_from
       FROM subscription_items
      WHERE tenant_id = $1 AND environment = $2 AND subscription_id = ANY($3::text[])
      ORDER BY subscription_id, position`,
    [scope.tenantId, scope.environment, subscriptionIds],
  );
  return rows;
}

/** Replaces the subscription's items with `items` (one statement). */
export async function replaceItems(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  items: readonly Omit<ItemRow, 'subscription_id'>[],
): Promise<void> {
  await db.query(
    `WITH gone AS (
       DELETE FROM subscription_items
        WHERE tenant_id = $1 AND environment = $2 AND subscription_id = $3
          AND NOT id = ANY($4::text[]))
     INSERT INTO subscription_items
       (tenant_id, environment, subscription_id, id, price_id, quantity, position, billed_full,
        metered_from)
     SELECT $1, $2, $3, i.id, i.price_id, i.quantity, i.position, i.billed_full, i.metered_from
       FROM unnest($4::text[], $5::text[], $6::bigint[], $7::int[], $8::bigint[],
                   $9::timestamptz[]) AS i(id, price_id, quantity, position, billed_full, metered_from)
     ON CONFLICT (tenant_id, environment, subscription_id, id) DO UPDATE
       SET price_id = excluded.price_id, quantity = excluded.quantity,
           position = excluded.position, billed_full = excluded.billed_full,
           metered_from = excluded.metered_from`,
    [
      scope.tenantId,
      scope.environment,
      subscriptionId,
      items.map((i) => i.id),
      items.map((i) => i.price_id),
      items.map((i) => i.quantity),
      items.map((i) => i.position),
      items.map((i) => i.billed_full),
      items.map((i) => i.metered_from),
    ],
  );
}

/**
 * Sets what these items of the subscription are billed at (billed_full, metered_from), nothing
 * else of them, in one statement; no items, no statement.
 */
export async function updateItemBilling(
  db: Queryable,
  scope: TenantScope,
  subscriptionId: string,
  items: readonly Pick<ItemRow, 'id' | 'billed_full' | 'metered_from'>[],
): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `UPDATE subscription_items i
        SET billed_full = b.billed_full, metered_from = b.metered_from
       FROM unnest($4::text[], $5::bigint[], $6::timestamptz[]) AS b(id, billed_full, metered_from)
      WHERE i.tenant_id = $1 AND i.environment = $2 AND i.subscription_id = $3 AND i.id = b.id`,
    [
      scope.tenantId,
      scope.environment,
      subscriptionId,
      ...arraysInStep(items, ['id', 'billed_full', 'metered_from']),
    ],
  );
}

/** One page, newest first (subscriptions_page, or the index of the filter given). */
export const selectSubscriptionPage = pageReader<
  SubscriptionRow,
  { customerId?: string | undefined; status?: string | undefined; priceId?: string | undefined }
>('SELECT * FROM subscriptions', {
  filters: (f) => [
    ['customer_id', f.customerId],
    ['status', f.status],
    [
      (param) =>
        `EXISTS (SELECT 1 FROM subscription_items i WHERE i.tenant_id = subscriptions.tenant_id
           AND i.environment = subscriptions.environment AND i.subscription_id = subscriptions.id
           AND i.price_id = ${param})`,
      f.priceId,
    ],
  ],
});
