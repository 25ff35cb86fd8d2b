// Lines shown rather than billed (a preview of a change, the upcoming invoice): as the API
// shows them, with the totals an invoice of them would have, below zero included.
import { getCustomerRow } from '../customers/service.ts';
import type { Queryable } from '../db/pool.ts';
import { priceSubscriptionLines } from '../invoices/service.ts';
import type { TenantScope } from '../tenancy.ts';
import { invoiceLine, type ProposedLine } from './lines.ts';
import type { SubscriptionRow } from './store.ts';

export async function shownLines(
  db: Queryable,
  scope: TenantScope,
  row: SubscriptionRow,
  lines: readonly ProposedLine[],
) {
  const customer = await getCustomerRow(db, scope, row.customer_id);
  const totals = await priceSubscriptionLines(
    db,
    scope,
    customer.tax_exempt,
    row.default_tax_rates,
    lines.map((l) => invoiceLine(l, row.time_zone)),
  );
  return {
    lines: lines.map((l) => ({
      description: l.description,
      quantity: l.quantity,
      quantityDecimal: l.quantityDecimal ?? null,
      amount: l.amount,
      period: { start: l.period.start.toISOString(), end: l.period.end.toISOString() },
      priceId: l.priceId,
      subscriptionItemId: l.subscriptionItemId,
      proration: l.proration,
    })),
    ...totals,
  };
}
