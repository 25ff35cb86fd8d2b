// What an invoice freezes at issue: its dates and buyer reference, and the customer and the
// seller as they are at that moment (src/documents/frozen.ts, as every issued document freezes
// them), so its documents print the same thing whenever they are rendered.
import type { CustomerRow } from '../customers/store.ts';
import type { SettingsRow } from '../settings/service.ts';
import { customerSnapshot, sellerSnapshot } from '../documents/frozen.ts';
import type { CustomerSnapshot, SellerSnapshot } from './schemas.ts';
import type { InvoiceRow } from './store.ts';

function addDays(date: Date, days: number): string {
  return new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);
}

/** What issuing the draft at `issuedAt` freezes and stores, besides its number and totals. */
export interface FrozenAtIssue {
  issued_at: Date;
  due_date: string | null;
  supply_date: string | null;
  buyer_reference: string;
  customer_snapshot: CustomerSnapshot;
  seller_snapshot: SellerSnapshot;
}

/**
 * The one definition of what issue freezes: the issue itself stores it, and a draft's
 * e-invoice readiness is checked on it, so both judge the same data.
 */
export function frozenAtIssue(
  row: Pick<
    InvoiceRow,
    'due_date' | 'days_until_due' | 'supply_date' | 'service_period_start' | 'buyer_reference'
  >,
  customer: CustomerRow,
  settings: SettingsRow,
  tenantName: string,
  issuedAt: Date,
): FrozenAtIssue {
  return {
    issued_at: issuedAt,
    due_date:
      row.due_date ?? (row.days_until_due === null ? null : addDays(issuedAt, row.days_until_due)),
    // The date of supply is the issue date unless the invoice says otherwise (EN 16931 BT-72).
    supply_date:
      row.supply_date ??
      (row.service_period_start === null ? issuedAt.toISOString().slice(0, 10) : null),
    buyer_reference: row.buyer_reference ?? customer.buyer_reference ?? customer.id,
    customer_snapshot: customerSnapshot(customer, settings),
    seller_snapshot: sellerSnapshot(settings, tenantName),
  };
}
